//! The bench plots (plotters), each as PNG and SVG: throughput and latency against message
//! size (WRITE and READ, 1 QP), and per-QP share against QP count. Labels carry units and the
//! model settings.
use crate::cmd::bench::Row;
use anyhow::{anyhow, Context, Result};
use nicgen_sim::host::NS_PER_CYCLE;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

const FONT: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";

fn register_font() -> Result<()> {
    static DONE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    if DONE.get().is_some() {
        return Ok(());
    }
    let bytes = std::fs::read(FONT).with_context(|| format!("{FONT} (fonts-dejavu-core; scripts/setup.sh installs it)"))?;
    plotters::style::register_font("sans-serif", FontStyle::Normal, Box::leak(bytes.into_boxed_slice())).map_err(|_| anyhow!("{FONT}: not a usable font"))?;
    let _ = DONE.set(true);
    Ok(())
}

type Series = (String, RGBColor, Vec<(f64, f64)>);
/// (file name, title, x label, y label, series, horizontal line, log y).
type Plot<'a> = (&'a str, String, &'a str, &'a str, &'a Vec<Series>, Option<(&'a str, f64)>, bool);

/// One log2-x chart with lines, drawn on any backend.
fn chart<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, title: &str, x_label: &str, y_label: &str, series: &[Series], hline: Option<(&str, f64)>, log_y: bool) -> Result<()>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(|e| anyhow!("{e:?}"))?;
    let xs: Vec<f64> = series.iter().flat_map(|s| s.2.iter().map(|p| p.0)).collect();
    let ys: Vec<f64> = series.iter().flat_map(|s| s.2.iter().map(|p| p.1)).chain(hline.map(|h| h.1)).collect();
    let (x0, x1) = (xs.iter().cloned().fold(f64::MAX, f64::min).max(1.0), xs.iter().cloned().fold(1.0, f64::max));
    let y1 = ys.iter().cloned().fold(0.0, f64::max) * 1.15;
    let y0 = ys.iter().cloned().filter(|v| *v > 0.0).fold(f64::MAX, f64::min).min(y1) / 1.5;
    let mut b = ChartBuilder::on(&root);
    b.caption(title, ("sans-serif", 22)).margin(14).x_label_area_size(48).y_label_area_size(70);
    let xr = (x0 / 1.3..x1 * 1.3).log_scale();
    macro_rules! draw {
        ($c:expr) => {{
            let mut c = $c;
            c.configure_mesh().x_desc(x_label).y_desc(y_label).x_label_formatter(&|v| fmt_x(*v)).draw().map_err(|e| anyhow!("{e:?}"))?;
            if let Some((name, y)) = hline {
                c.draw_series(LineSeries::new(vec![(x0 / 1.3, y), (x1 * 1.3, y)], BLACK.stroke_width(1))).map_err(|e| anyhow!("{e:?}"))?.label(name).legend(|(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], BLACK));
            }
            for (name, color, pts) in series {
                let c2 = *color;
                c.draw_series(LineSeries::new(pts.clone(), c2.stroke_width(2))).map_err(|e| anyhow!("{e:?}"))?.label(name.as_str()).legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], c2.stroke_width(2)));
                c.draw_series(pts.iter().map(|p| Circle::new(*p, 3, c2.filled()))).map_err(|e| anyhow!("{e:?}"))?;
            }
            c.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).position(SeriesLabelPosition::LowerRight).draw().map_err(|e| anyhow!("{e:?}"))?;
        }};
    }
    if log_y {
        draw!(b.build_cartesian_2d(xr, (y0..y1).log_scale()).map_err(|e| anyhow!("{e:?}"))?);
    } else {
        draw!(b.build_cartesian_2d(xr, 0.0..y1).map_err(|e| anyhow!("{e:?}"))?);
    }
    root.present().map_err(|e| anyhow!("{e:?}"))?;
    Ok(())
}

/// Tick labels of a log axis: 100, 1k, 10k, 100k, 1M.
fn fmt_x(v: f64) -> String {
    if v >= 1e6 {
        format!("{}M", v / 1e6)
    } else if v >= 1e3 {
        format!("{}k", v / 1e3)
    } else {
        format!("{v}")
    }
}

pub fn all(dir: &Path, rows: &[Row], settings: &str) -> Result<Vec<PathBuf>> {
    register_font()?;
    let mut out = vec![];
    let pick = |group: &str, op: &str, f: &dyn Fn(&Row) -> (f64, f64)| -> Vec<(f64, f64)> { rows.iter().filter(|r| r.group == group && r.op == op).map(f).collect() };
    let tput: Vec<Series> = vec![
        ("WRITE".into(), BLUE, pick("fig4-throughput", "WRITE", &|r| (r.size as f64, r.goodput_gbps))),
        ("READ".into(), RED, pick("fig4-throughput", "READ", &|r| (r.size as f64, r.goodput_gbps))),
    ];
    let lat: Vec<Series> = vec![
        ("WRITE".into(), BLUE, pick("fig4-latency", "WRITE", &|r| (r.size as f64, r.lat_mean_cycles * NS_PER_CYCLE / 1000.0))),
        ("READ".into(), RED, pick("fig4-latency", "READ", &|r| (r.size as f64, r.lat_mean_cycles * NS_PER_CYCLE / 1000.0))),
    ];
    let share: Vec<Series> = vec![
        ("aggregate".into(), BLUE, rows.iter().filter(|r| r.group == "fig5-qps").map(|r| (r.qps as f64, r.goodput_gbps)).collect()),
        ("per QP".into(), RED, rows.iter().filter(|r| r.group == "fig5-qps").filter_map(|r| r.per_qp_gbps.map(|g| (r.qps as f64, g))).collect()),
    ];
    let ceiling = nicgen_scenario::rdma::payload_ceiling(4096);
    let loss: Vec<Series> = vec![("64 KiB WRITE, 4 QPs".into(), BLUE, rows.iter().filter(|r| r.group == "loss" && r.loss_pct > 0.0).map(|r| (100.0 * r.loss_pct, r.goodput_gbps)).collect())];
    let lossless = rows.iter().find(|r| r.group == "loss" && r.loss_pct == 0.0).map(|r| ("lossless", r.goodput_gbps));
    let plots: Vec<Plot> = vec![
        ("throughput", format!("Throughput vs message size, 1 QP ({settings})"), "message size (bytes)", "goodput (GB/s)", &tput, Some(("100G payload ceiling", ceiling)), false),
        ("latency", format!("Latency vs message size, 1 outstanding ({settings})"), "message size (bytes)", "post → completion (µs)", &lat, None, true),
        ("qp_share", format!("32 KiB READ over N QPs ({settings})"), "QPs", "goodput (GB/s)", &share, Some(("100G payload ceiling", ceiling)), true),
        ("loss", format!("Goodput vs random frame loss, Go-Back-N ({settings})"), "frame loss, both directions (basis points: 100 = 1 %)", "goodput (GB/s)", &loss, lossless, false),
    ];
    for (name, title, xl, yl, series, hline, log_y) in plots {
        if series.iter().all(|s| s.2.is_empty()) {
            continue;
        }
        let png = dir.join(format!("{name}.png"));
        chart(BitMapBackend::new(&png, (1100, 650)).into_drawing_area(), &title, xl, yl, series, hline, log_y)?;
        let svg = dir.join(format!("{name}.svg"));
        chart(SVGBackend::new(&svg, (1100, 650)).into_drawing_area(), &title, xl, yl, series, hline, log_y)?;
        out.push(png);
        out.push(svg);
    }
    Ok(out)
}
