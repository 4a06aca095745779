//! The log-log plot of frequency by rank (the winnowing paper's Figure 4),
//! drawn from a [`RankReport`] with `plotters` as SVG and PNG (feature
//! `plot`): the rendering of the rank model, as `bryo-html` renders the
//! comparison report.
//!
//! Text needs a TrueType font: plotters' `ab_glyph` backend reads one from
//! a file (no system font library is linked). Without a font the plot is
//! drawn without any text (axes, curves and fitted lines only).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::{Distribution, Error, Fit, PlotFiles, RankReport};

/// Where systems usually keep a plain sans-serif font.
const FONT_CANDIDATES: &[&str] = &[
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
    "/usr/share/fonts/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
    "/usr/share/fonts/liberation/LiberationSans-Regular.ttf",
    "/Library/Fonts/Arial.ttf",
    "/System/Library/Fonts/Supplemental/Arial.ttf",
    "C:\\Windows\\Fonts\\arial.ttf",
];

/// One curve: the plateau endpoints `(rank, frequency)` and the fitted line.
struct Curve {
    name: &'static str,
    points: Vec<(f64, f64)>,
    fit: Option<Fit>,
}

impl Curve {
    fn new(name: &'static str, distribution: &Distribution) -> Curve {
        Curve {
            name,
            points: distribution
                .plateau_endpoints()
                .iter()
                .map(|&(r, f)| (r as f64, f as f64))
                .collect(),
            fit: distribution.power_law,
        }
    }
}

/// Registers `bytes` as plotters' sans-serif font (kept for the life of
/// the process, as plotters requires).
fn register(bytes: Vec<u8>) -> bool {
    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok()
}

/// Registers the font of the plot's text: the one given (an error if it
/// cannot be used), or the first usable one of the usual places (DejaVu
/// Sans, Liberation Sans, Arial). Whether text can be drawn. Call it before
/// a long run, so that a bad font is reported at once.
///
/// # Errors
///
/// [`Error::Font`] and [`Error::NotAFont`] for the font given.
pub fn font_ready(font: Option<&Path>) -> Result<bool, Error> {
    static FOUND: OnceLock<bool> = OnceLock::new();
    match font {
        Some(path) => {
            let bytes = std::fs::read(path).map_err(|source| Error::Font {
                path: path.display().to_string(),
                source,
            })?;
            if !register(bytes) {
                return Err(Error::NotAFont {
                    path: path.display().to_string(),
                });
            }
            Ok(true)
        }
        None => Ok(*FOUND.get_or_init(|| {
            FONT_CANDIDATES
                .iter()
                .filter_map(|p| std::fs::read(PathBuf::from(p)).ok())
                .any(register)
        })),
    }
}

/// Draws the frequency by rank of all k-gram hashes and of the winnowed
/// fingerprints of `report`, with their fitted power laws, into
/// `dir/rank.svg` and `dir/rank.png` (`dir` is created if missing); with
/// text when `labels` (a font was registered by [`font_ready`]).
///
/// # Errors
///
/// [`Error::CreateDir`], or [`Error::Draw`] when an image cannot be drawn
/// or written.
pub fn draw_rank_plot(report: &RankReport, dir: &Path, labels: bool) -> Result<PlotFiles, Error> {
    std::fs::create_dir_all(dir).map_err(|source| Error::CreateDir {
        path: dir.display().to_string(),
        source,
    })?;
    let (svg, png) = (dir.join("rank.svg"), dir.join("rank.png"));
    let curves = [
        Curve::new("all k-gram hashes", &report.hashes),
        Curve::new("winnowed fingerprints", &report.fingerprints),
    ];
    let failed = |path: &Path| {
        let path = path.display().to_string();
        move |source| Error::Draw { path, source }
    };
    let size = (960, 720);
    draw(
        SVGBackend::new(&svg, size).into_drawing_area(),
        &curves,
        labels,
    )
    .map_err(failed(&svg))?;
    draw(
        BitMapBackend::new(&png, size).into_drawing_area(),
        &curves,
        labels,
    )
    .map_err(failed(&png))?;
    Ok(PlotFiles {
        svg: svg.display().to_string(),
        png: png.display().to_string(),
        labels,
    })
}

const COLORS: [RGBColor; 2] = [RGBColor(31, 119, 180), RGBColor(214, 39, 40)];

fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    curves: &[Curve],
    labels: bool,
) -> Result<(), Box<dyn std::error::Error + Send + Sync>>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE)?;
    let max = |f: fn(&(f64, f64)) -> f64| {
        curves
            .iter()
            .flat_map(|c| c.points.iter().map(f))
            .fold(1.0f64, f64::max)
    };
    // Whole decades, so the axes read 1, 10, 100, …
    let decade = |v: f64| 10f64.powf(v.log10().ceil().max(1.0));
    let (x_max, y_max) = (decade(max(|p| p.0)), decade(max(|p| p.1)));
    let mut builder = ChartBuilder::on(&root);
    builder.margin(24);
    if labels {
        builder
            .caption("Frequency by rank of k-gram hashes", ("sans-serif", 26))
            .x_label_area_size(56)
            .y_label_area_size(80);
    }
    let mut chart =
        builder.build_cartesian_2d((1f64..x_max).log_scale(), (1f64..y_max).log_scale())?;
    let mut mesh = chart.configure_mesh();
    mesh.light_line_style(RGBColor(235, 235, 235));
    if labels {
        mesh.x_desc("rank")
            .y_desc("frequency")
            .label_style(("sans-serif", 16))
            .x_label_formatter(&|v| integer(*v))
            .y_label_formatter(&|v| integer(*v))
            .axis_desc_style(("sans-serif", 20));
    } else {
        mesh.x_labels(0).y_labels(0);
    }
    mesh.draw()?;
    for (curve, color) in curves.iter().zip(COLORS) {
        let series = chart.draw_series(LineSeries::new(
            curve.points.iter().copied(),
            color.stroke_width(2),
        ))?;
        if labels {
            series.label(curve.name).legend(move |(x, y)| {
                PathElement::new([(x, y), (x + 24, y)], color.stroke_width(2))
            });
        }
        if let Some(fit) = curve.fit {
            let last = curve.points.last().map_or(1.0, |p| p.0);
            let line = |x: f64| (x, 10f64.powf(fit.intercept + fit.slope * x.log10()));
            let steps = 64;
            let points: Vec<(f64, f64)> = (0..=steps)
                .map(|i| line(10f64.powf(last.log10() * f64::from(i) / f64::from(steps))))
                .filter(|p| p.1 >= 1.0 && p.1 <= y_max)
                .collect();
            let series = chart.draw_series(DashedLineSeries::new(
                points,
                8,
                6,
                color.mix(0.6).stroke_width(1),
            ))?;
            if labels {
                series
                    .label(format!("{} fit: slope {:.2}", curve.name, fit.slope))
                    .legend(move |(x, y)| {
                        PathElement::new([(x, y), (x + 24, y)], color.mix(0.6).stroke_width(1))
                    });
            }
        }
    }
    if labels {
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK.mix(0.3))
            .label_font(("sans-serif", 16))
            .draw()?;
    }
    root.present()?;
    Ok(())
}

/// Tick labels of whole numbers: 1, 10, 1000, 1e6 beyond a million.
fn integer(v: f64) -> String {
    if v >= 1e6 {
        format!("1e{:.0}", v.log10())
    } else {
        format!("{v:.0}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{FrequencyTable, HashCount};

    fn report() -> RankReport {
        let mut table = FrequencyTable::default();
        // A power law: the hash of rank r occurs 1000 / r times.
        for rank in 1..=200u64 {
            table.observe(HashCount {
                hash: rank,
                count: 1000 / rank,
            });
        }
        RankReport {
            schema: "bryo.rank/1",
            k: 5,
            w: 4,
            t: 8,
            hash: "karp-rabin",
            hash_scheme_version: 1,
            front_end: crate::InputFormat::Raw,
            text_mode: None,
            documents: 1,
            total_bytes: 1,
            symbols: 1,
            skipped: Vec::new(),
            other_extension: 0,
            spilled_runs: 0,
            hashes: Distribution::new(&table),
            fingerprints: Distribution::new(&table),
            top: Vec::new(),
            top_fingerprints: Vec::new(),
            plot: None,
        }
    }

    #[test]
    fn draws_an_svg_and_a_png_without_a_font() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("plots");
        let files = draw_rank_plot(&report(), &out, false).unwrap();
        assert_eq!(files.svg, out.join("rank.svg").display().to_string());
        assert!(!files.labels);
        let svg = std::fs::read_to_string(&files.svg).unwrap();
        assert!(svg.contains("<svg") && svg.contains("<polyline"), "{svg}");
        let png = std::fs::read(&files.png).unwrap();
        assert_eq!(png[..8], *b"\x89PNG\r\n\x1a\n");
    }

    #[test]
    fn a_bad_font_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("none.ttf");
        let err = font_ready(Some(&missing)).unwrap_err();
        assert!(matches!(err, Error::Font { .. }), "{err}");
        assert!(err.to_string().starts_with("cannot read the font"));
        let garbage = dir.path().join("garbage.ttf");
        std::fs::write(&garbage, b"not a font").unwrap();
        let err = font_ready(Some(&garbage)).unwrap_err();
        assert!(matches!(err, Error::NotAFont { .. }), "{err}");
    }

    #[test]
    fn an_unwritable_folder_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("file");
        std::fs::write(&file, b"").unwrap();
        let err = draw_rank_plot(&report(), &file.join("sub"), false).unwrap_err();
        assert!(matches!(err, Error::CreateDir { .. }), "{err}");
    }
}
