//! Plain-text tables for the terminal: every command that prints rows
//! (density, rank, fingerprints, languages) aligns them the same way,
//! instead of each hand-writing format widths.

use std::io::{self, Write};

/// One column: its alignment, its least width and the text before it.
#[derive(Clone, Copy, Debug)]
struct Column {
    right: bool,
    min_width: usize,
    gap: &'static str,
}

/// Rows of cells written as aligned columns: each column as wide as its
/// widest cell (in characters) and at least its least width, as `format!`
/// pads (`{:<8}`, `{:>6}`); a last, left-aligned column is not padded, so
/// text cells do not end in spaces.
///
/// ```
/// use bryo_report::Columns;
///
/// let mut table = Columns::new().left("", 8).right(" ", 6).left("  ", 0);
/// table.row(["name", "count", "note"]);
/// table.row(["alpha", "1,024", "first"]);
/// let mut out = Vec::new();
/// table.write(&mut out)?;
/// assert_eq!(
///     String::from_utf8(out).unwrap(),
///     "name      count  note\nalpha     1,024  first\n"
/// );
/// # Ok::<(), std::io::Error>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct Columns {
    columns: Vec<Column>,
    rows: Vec<Vec<String>>,
}

impl Columns {
    /// A table without columns.
    pub fn new() -> Columns {
        Columns::default()
    }

    /// Adds a left-aligned column of at least `min_width` characters,
    /// written after `gap`.
    pub fn left(self, gap: &'static str, min_width: usize) -> Columns {
        self.column(false, gap, min_width)
    }

    /// Adds a right-aligned column of at least `min_width` characters,
    /// written after `gap`.
    pub fn right(self, gap: &'static str, min_width: usize) -> Columns {
        self.column(true, gap, min_width)
    }

    fn column(mut self, right: bool, gap: &'static str, min_width: usize) -> Columns {
        self.columns.push(Column {
            right,
            min_width,
            gap,
        });
        self
    }

    /// Adds a row; missing cells are empty, cells beyond the columns are
    /// dropped.
    pub fn row<S: Into<String>>(&mut self, cells: impl IntoIterator<Item = S>) {
        let mut row: Vec<String> = cells.into_iter().map(Into::into).collect();
        row.resize(self.columns.len(), String::new());
        self.rows.push(row);
    }

    /// Writes the rows, one line each.
    ///
    /// # Errors
    ///
    /// The writer's.
    pub fn write<W: Write + ?Sized>(&self, out: &mut W) -> io::Result<()> {
        let widths: Vec<usize> = (0..self.columns.len())
            .map(|i| {
                let cells = self.rows.iter().map(|r| r[i].chars().count());
                cells.fold(self.columns[i].min_width, usize::max)
            })
            .collect();
        let last = self.columns.len().saturating_sub(1);
        for row in &self.rows {
            let mut line = String::new();
            for (i, (cell, c)) in row.iter().zip(&self.columns).enumerate() {
                line.push_str(c.gap);
                let pad = " ".repeat(widths[i] - cell.chars().count());
                match (c.right, i == last) {
                    (true, _) => line.extend([pad.as_str(), cell]),
                    (false, false) => line.extend([cell.as_str(), &pad]),
                    (false, true) => line.push_str(cell),
                }
            }
            writeln!(out, "{line}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(table: &Columns) -> String {
        let mut out = Vec::new();
        table.write(&mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn widths_are_at_least_the_minimum_and_grow_with_the_cells() {
        let mut t = Columns::new().left("", 3).right(" ", 2).right(" ", 0);
        t.row(["a", "1", "x"]);
        t.row(["long name", "22", "yy"]);
        assert_eq!(text(&t), "a          1  x\nlong name 22 yy\n");
        // As format! pads: the same as `{:<3} {:>2} {:>0}` where cells fit.
        let mut fits = Columns::new().left("", 3).right(" ", 2);
        fits.row(["ab", "7"]);
        assert_eq!(text(&fits), format!("{:<3} {:>2}\n", "ab", "7"));
    }

    #[test]
    fn a_last_left_column_is_not_padded_and_rows_are_completed() {
        let mut t = Columns::new().left("", 0).left("  ", 0);
        t.row(["é", "wide cell"]);
        t.row(["ab"]);
        t.row(["a", "b", "dropped"]);
        assert_eq!(text(&t), "é   wide cell\nab  \na   b\n");
        assert_eq!(text(&Columns::new()), "");
    }
}
