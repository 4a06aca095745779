//! The log-log plot of frequency by rank (the winnowing paper's Figure 4),
//! drawn with `plotters` as SVG and PNG.
//!
//! Text needs a TrueType font: plotters' `ab_glyph` backend reads one from
//! a file (no system font library is linked). Without a font the plot is
//! drawn without any text (axes, curves and fitted lines only).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use anyhow::{anyhow, bail, Context, Result};
use bryo_stats::{FrequencyTable, PowerLaw};
use plotters::coord::Shift;
use plotters::prelude::*;

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
pub struct Curve {
    name: &'static str,
    points: Vec<(f64, f64)>,
    fit: Option<PowerLaw>,
}

impl Curve {
    pub fn new(name: &'static str, table: &FrequencyTable) -> Curve {
        Curve {
            name,
            points: table
                .plateau_endpoints()
                .iter()
                .map(|&(r, f)| (r as f64, f as f64))
                .collect(),
            fit: table.power_law(),
        }
    }
}

/// Registers `bytes` as plotters' sans-serif font (kept for the life of
/// the process, as plotters requires).
fn register(bytes: Vec<u8>) -> bool {
    let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
    plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok()
}

/// Registers the font: the one given (an error if it cannot be used), or
/// the first usable one of the usual places. Whether text can be drawn.
pub fn font_ready(font: Option<&Path>) -> Result<bool> {
    static FOUND: OnceLock<bool> = OnceLock::new();
    match font {
        Some(path) => {
            let bytes = std::fs::read(path)
                .with_context(|| format!("cannot read the font {}", path.display()))?;
            if !register(bytes) {
                bail!("{} is not a TrueType or OpenType font", path.display());
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

/// Draws `curves` into `svg` and `png`, with text when `labels` (a font
/// was registered by [`font_ready`]).
pub fn draw_rank_plot(svg: &Path, png: &Path, labels: bool, curves: &[Curve]) -> Result<()> {
    let size = (960, 720);
    draw(
        SVGBackend::new(svg, size).into_drawing_area(),
        curves,
        labels,
    )
    .map_err(|e| anyhow!("cannot draw {}: {e}", svg.display()))?;
    draw(
        BitMapBackend::new(png, size).into_drawing_area(),
        curves,
        labels,
    )
    .map_err(|e| anyhow!("cannot draw {}: {e}", png.display()))?;
    Ok(())
}

const COLORS: [RGBColor; 2] = [RGBColor(31, 119, 180), RGBColor(214, 39, 40)];

fn draw<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    curves: &[Curve],
    labels: bool,
) -> Result<(), Box<dyn std::error::Error + 'static>>
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
