//! Draws a report's plots with plotters, as SVG and as PNG.
//!
//! Text is laid out with ab_glyph from DejaVu Sans loaded at run time
//! (both backends need its metrics), so nothing depends on the system's
//! font configuration.

use crate::error::LabError;
use crate::report::Plot;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::FontStyle;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Where the font is read from.
pub const FONT_PATH: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

const W: u32 = 960;
const H: u32 = 600;

/// Colours of the series, distinguishable when printed in grey too.
const PALETTE: [RGBColor; 6] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
];

static FONT: OnceLock<Result<(), String>> = OnceLock::new();

/// Loads and registers the font once.
fn font() -> Result<(), LabError> {
    FONT.get_or_init(|| {
        let bytes = std::fs::read(FONT_PATH).map_err(|e| {
            format!(
                "plots need the font {FONT_PATH} ({e}); install it with `apt-get install fonts-dejavu-core`"
            )
        })?;
        // plotters keeps fonts for the whole process.
        let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
        for style in [FontStyle::Normal, FontStyle::Bold] {
            plotters::style::register_font("sans-serif", style, bytes)
                .map_err(|_| format!("{FONT_PATH} is not a usable TrueType font"))?;
        }
        Ok(())
    })
    .clone()
    .map_err(|reason| LabError::Write {
        path: "plots".into(),
        reason,
    })
}

/// Writes every plot as `DIR/<stem>.svg` and `DIR/<stem>.png`; returns the
/// files written.
pub fn write_all(plots: &[Plot], dir: &Path, prefix: &str) -> Result<Vec<PathBuf>, LabError> {
    font()?;
    std::fs::create_dir_all(dir).map_err(|e| LabError::Write {
        path: dir.display().to_string(),
        reason: e.to_string(),
    })?;
    let mut out = Vec::new();
    for p in plots {
        let stem = format!("{prefix}{}", p.file());
        let svg = dir.join(format!("{stem}.svg"));
        let png = dir.join(format!("{stem}.png"));
        let err = |path: &Path, e: String| LabError::Write {
            path: path.display().to_string(),
            reason: e,
        };
        {
            let root = SVGBackend::new(&svg, (W, H)).into_drawing_area();
            draw(p, &root).map_err(|e| err(&svg, e))?;
            root.present().map_err(|e| err(&svg, e.to_string()))?;
        }
        {
            let root = BitMapBackend::new(&png, (W, H)).into_drawing_area();
            draw(p, &root).map_err(|e| err(&png, e))?;
            root.present().map_err(|e| err(&png, e.to_string()))?;
        }
        out.push(svg);
        out.push(png);
    }
    Ok(out)
}

fn e2s<E: std::fmt::Debug>(e: E) -> String {
    format!("{e:?}")
}

/// Labels a category axis centred on integers `0..n`.
fn category(labels: &[String]) -> impl Fn(&f64) -> String + '_ {
    move |x: &f64| {
        let i = x.round();
        if (x - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < labels.len() {
            labels[i as usize].clone()
        } else {
            String::new()
        }
    }
}

/// A number for an axis tick, short.
fn tick(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{:.1}M", v / 1e6)
    } else if a >= 1e4 {
        format!("{:.0}k", v / 1e3)
    } else if a >= 100.0 {
        format!("{v:.0}")
    } else {
        // Up to two decimals without trailing zeros: 0.8, 1, 1.25.
        let s = format!("{v:.2}");
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    }
}

fn draw<DB: DrawingBackend>(p: &Plot, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
    root.fill(&WHITE).map_err(e2s)?;
    let title_font = ("sans-serif", 26).into_font();
    let label_font = ("sans-serif", 18).into_font();
    match p {
        Plot::Bars {
            title,
            x_label,
            y_label,
            labels,
            series,
            log_y,
            ..
        } => {
            let n = labels.len().max(1);
            let k = series.len().max(1);
            // Log scale: draw log10 of the values on a linear axis and label
            // the ticks with powers of ten.
            let tr = |v: f64| if *log_y { v.max(1.0).log10() } else { v };
            let ymax = series
                .iter()
                .flat_map(|s| s.1.iter())
                .map(|&v| tr(v))
                .filter(|v| v.is_finite())
                .fold(0.0f64, f64::max);
            // Headroom for the value labels and the legend.
            let ytop = match (*log_y, k > 1) {
                (true, true) => ymax.ceil().max(1.0) + 1.0,
                (true, false) => ymax.ceil().max(1.0) + 0.3,
                (false, true) => (ymax * 1.35).max(1.0),
                (false, false) => (ymax * 1.12).max(1.0),
            };
            // On a log scale a count of 1 (log 0) still shows as a stub.
            let ybot = if *log_y { -0.3 } else { 0.0 };
            let label_area = if labels.iter().any(|l| l.chars().count() > 10) {
                90
            } else {
                55
            };
            let mut chart = ChartBuilder::on(root)
                .caption(title, title_font)
                .margin(16)
                .x_label_area_size(label_area)
                .y_label_area_size(80)
                .build_cartesian_2d(-0.5f64..(n as f64 - 0.5), ybot..ytop)
                .map_err(e2s)?;
            let fmt_x = category(labels);
            let fmt_y = |y: &f64| {
                if *log_y {
                    if (y - y.round()).abs() < 1e-6 {
                        tick(10f64.powf(y.round()))
                    } else {
                        String::new()
                    }
                } else {
                    tick(*y)
                }
            };
            chart
                .configure_mesh()
                .disable_x_mesh()
                .light_line_style(WHITE)
                .x_labels(n.min(40))
                .x_label_formatter(&fmt_x)
                .y_labels(if *log_y { ytop as usize + 1 } else { 10 })
                .y_label_formatter(&fmt_y)
                .x_desc(x_label)
                .y_desc(y_label)
                .axis_desc_style(label_font.clone())
                .label_style(("sans-serif", 15))
                .draw()
                .map_err(e2s)?;
            let w = 0.8 / k as f64;
            for (j, (name, vals)) in series.iter().enumerate() {
                let c = PALETTE[j % PALETTE.len()];
                let bars =
                    vals.iter()
                        .enumerate()
                        .filter(|(_, v)| v.is_finite())
                        .map(move |(i, &v)| {
                            let x0 = i as f64 - 0.4 + j as f64 * w;
                            Rectangle::new([(x0, ybot), (x0 + w * 0.95, tr(v))], c.filled())
                        });
                let s = chart.draw_series(bars).map_err(e2s)?;
                if k > 1 {
                    s.label(name.as_str()).legend(move |(x, y)| {
                        Rectangle::new([(x, y - 6), (x + 14, y + 6)], c.filled())
                    });
                }
                // Values written on the bars when there are few, so small
                // counts beside large ones can still be read.
                if n * k <= 24 {
                    let centre = plotters::style::text_anchor::Pos::new(
                        plotters::style::text_anchor::HPos::Center,
                        plotters::style::text_anchor::VPos::Bottom,
                    );
                    let labels = vals.iter().enumerate().filter(|(_, v)| v.is_finite()).map(
                        move |(i, &v)| {
                            let x = i as f64 - 0.4 + (j as f64 + 0.475) * w;
                            Text::new(
                                tick(v),
                                (x, tr(v).max(ybot)),
                                ("sans-serif", 14).into_font().color(&BLACK).pos(centre),
                            )
                        },
                    );
                    chart.draw_series(labels).map_err(e2s)?;
                }
            }
            if k > 1 {
                chart
                    .configure_series_labels()
                    .background_style(WHITE.mix(0.9))
                    .border_style(BLACK)
                    .label_font(("sans-serif", 16))
                    .position(SeriesLabelPosition::UpperRight)
                    .draw()
                    .map_err(e2s)?;
            }
        }
        Plot::Lines {
            title,
            x_label,
            y_label,
            series,
            ..
        } => {
            let pts = series.iter().flat_map(|s| s.1.iter());
            let (mut x0, mut x1, mut y1) = (f64::MAX, f64::MIN, 0.0f64);
            for &(x, y) in pts {
                x0 = x0.min(x);
                x1 = x1.max(x);
                y1 = y1.max(y);
            }
            if x0 > x1 {
                (x0, x1) = (0.0, 1.0);
            }
            if x0 == x1 {
                x1 = x0 + 1.0;
            }
            let pad = (x1 - x0) * 0.03;
            let mut chart = ChartBuilder::on(root)
                .caption(title, title_font)
                .margin(16)
                .x_label_area_size(55)
                .y_label_area_size(80)
                .build_cartesian_2d((x0 - pad)..(x1 + pad), 0f64..(y1 * 1.1).max(1e-9))
                .map_err(e2s)?;
            // Integer x values (counts of operations …) get integer ticks.
            let integral = series
                .iter()
                .flat_map(|s| s.1.iter())
                .all(|p| p.0.fract() == 0.0);
            let nx = if integral {
                ((x1 - x0) as usize + 1).min(20)
            } else {
                10
            };
            chart
                .configure_mesh()
                .light_line_style(WHITE)
                .x_labels(nx)
                .x_desc(x_label)
                .y_desc(y_label)
                .axis_desc_style(label_font.clone())
                .label_style(("sans-serif", 15))
                .x_label_formatter(&|x| tick(*x))
                .y_label_formatter(&|y| tick(*y))
                .draw()
                .map_err(e2s)?;
            for (j, (name, points)) in series.iter().enumerate() {
                let c = PALETTE[j % PALETTE.len()];
                chart
                    .draw_series(LineSeries::new(points.iter().copied(), c.stroke_width(3)))
                    .map_err(e2s)?
                    .label(name.as_str())
                    .legend(move |(x, y)| {
                        PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(3))
                    });
                chart
                    .draw_series(
                        points
                            .iter()
                            .map(move |&(x, y)| Circle::new((x, y), 5, c.filled())),
                    )
                    .map_err(e2s)?;
            }
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.9))
                .border_style(BLACK)
                .label_font(("sans-serif", 16))
                .position(SeriesLabelPosition::UpperRight)
                .draw()
                .map_err(e2s)?;
        }
        Plot::Heat {
            title,
            x_label,
            y_label,
            x_labels,
            y_labels,
            values,
            ..
        } => {
            let nx = x_labels.len().max(1);
            let ny = y_labels.len().max(1);
            let mut chart = ChartBuilder::on(root)
                .caption(title, title_font)
                .margin(16)
                .x_label_area_size(55)
                .y_label_area_size(90)
                .build_cartesian_2d(-0.5f64..(nx as f64 - 0.5), -0.5f64..(ny as f64 - 0.5))
                .map_err(e2s)?;
            let fx = category(x_labels);
            let fy = category(y_labels);
            chart
                .configure_mesh()
                .disable_mesh()
                .x_labels(nx)
                .y_labels(ny)
                .x_label_formatter(&fx)
                .y_label_formatter(&fy)
                .x_desc(x_label)
                .y_desc(y_label)
                .axis_desc_style(label_font.clone())
                .label_style(("sans-serif", 15))
                .draw()
                .map_err(e2s)?;
            let lerp = |a: u8, b: u8, t: f64| (a as f64 + (b as f64 - a as f64) * t).round() as u8;
            for (r, row) in values.iter().enumerate() {
                for (c, &v) in row.iter().enumerate() {
                    let t = if v.is_finite() {
                        v.clamp(0.0, 1.0)
                    } else {
                        0.0
                    };
                    let fill = RGBColor(lerp(247, 8, t), lerp(251, 48, t), lerp(255, 107, t));
                    let (x, y) = (c as f64, r as f64);
                    chart
                        .draw_series([Rectangle::new(
                            [(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)],
                            fill.filled(),
                        )])
                        .map_err(e2s)?;
                    chart
                        .draw_series([Rectangle::new(
                            [(x - 0.5, y - 0.5), (x + 0.5, y + 0.5)],
                            WHITE.stroke_width(1),
                        )])
                        .map_err(e2s)?;
                    let txt = if v.is_finite() {
                        format!("{:.0}%", v * 100.0)
                    } else {
                        "-".into()
                    };
                    let colour = if t > 0.5 { WHITE } else { BLACK };
                    let style = ("sans-serif", 16).into_font().color(&colour).pos(
                        plotters::style::text_anchor::Pos::new(
                            plotters::style::text_anchor::HPos::Center,
                            plotters::style::text_anchor::VPos::Center,
                        ),
                    );
                    chart
                        .draw_series([Text::new(txt, (x, y), style)])
                        .map_err(e2s)?;
                }
            }
        }
    }
    Ok(())
}
