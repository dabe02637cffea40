//! Reports: tables (text, Markdown, CSV, JSON) and plot descriptions that
//! [`crate::plot`] draws as SVG and PNG.

use serde::Serialize;

/// Means, medians and quantiles are the workspace's one convention (nearest
/// rank, NaN for an empty sample), re-exported for the experiments.
pub use endgame_core::stats::{mean, median, quantile};

/// A table of a report.
#[derive(Clone, Debug, Serialize)]
pub struct Table {
    /// Its title.
    pub title: String,
    /// Column headers.
    pub columns: Vec<String>,
    /// Rows of cells.
    pub rows: Vec<Vec<String>>,
}

impl Table {
    /// An empty table.
    pub fn new(title: &str, columns: &[&str]) -> Table {
        Table {
            title: title.to_string(),
            columns: columns.iter().map(|c| c.to_string()).collect(),
            rows: Vec::new(),
        }
    }

    /// Appends a row.
    pub fn row(&mut self, cells: Vec<String>) {
        self.rows.push(cells);
    }
}

/// A figure of a report.
#[derive(Clone, Debug, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Plot {
    /// Grouped bars (a histogram when there is one series).
    Bars {
        /// File stem.
        file: String,
        /// Title.
        title: String,
        /// X axis label.
        x_label: String,
        /// Y axis label.
        y_label: String,
        /// One label per bar group.
        labels: Vec<String>,
        /// `(name, one value per label)`.
        series: Vec<(String, Vec<f64>)>,
        /// Logarithmic Y axis.
        log_y: bool,
    },
    /// Lines through points.
    Lines {
        /// File stem.
        file: String,
        /// Title.
        title: String,
        /// X axis label.
        x_label: String,
        /// Y axis label.
        y_label: String,
        /// `(name, points)`.
        series: Vec<(String, Vec<(f64, f64)>)>,
    },
    /// A heat table: a coloured grid with the value written in each cell.
    Heat {
        /// File stem.
        file: String,
        /// Title.
        title: String,
        /// X axis label.
        x_label: String,
        /// Y axis label.
        y_label: String,
        /// Column labels.
        x_labels: Vec<String>,
        /// Row labels.
        y_labels: Vec<String>,
        /// `values[row][column]`, in 0..=1 for the colour scale.
        values: Vec<Vec<f64>>,
    },
}

impl Plot {
    /// The file stem.
    pub fn file(&self) -> &str {
        match self {
            Plot::Bars { file, .. } | Plot::Lines { file, .. } | Plot::Heat { file, .. } => file,
        }
    }
}

/// A report of one run.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Run id.
    pub run: i64,
    /// Later runs combined with it (`lab report RUN --with …`).
    pub combined: Vec<i64>,
    /// Experiment.
    pub experiment: String,
    /// Parameters (canonical JSON).
    pub params: String,
    /// Seed.
    pub seed: u64,
    /// Units stored / units in the run.
    pub units_done: u64,
    /// Units in the run.
    pub units_total: u64,
    /// Free-text observations (comparisons with the figures of the source
    /// documents, `docs/README.md`).
    pub notes: Vec<String>,
    /// Tables.
    pub tables: Vec<Table>,
    /// Figures.
    pub plots: Vec<Plot>,
}

impl Report {
    /// A report with tables and plots, run fields filled in later.
    pub fn new(tables: Vec<Table>, plots: Vec<Plot>, notes: Vec<String>) -> Report {
        Report {
            run: 0,
            combined: Vec::new(),
            experiment: String::new(),
            params: String::new(),
            seed: 0,
            units_done: 0,
            units_total: 0,
            notes,
            tables,
            plots,
        }
    }

    fn header(&self) -> String {
        let with: String = self.combined.iter().map(|w| format!(" + {w}")).collect();
        format!(
            "run {}{with} — {} {} seed {} ({}/{} units)",
            self.run, self.experiment, self.params, self.seed, self.units_done, self.units_total
        )
    }

    /// Plain text with aligned columns.
    pub fn text(&self) -> String {
        let mut s = format!("{}\n", self.header());
        for n in &self.notes {
            s.push_str(&format!("  {n}\n"));
        }
        for t in &self.tables {
            s.push_str(&format!("\n{}\n", t.title));
            let w: Vec<usize> = (0..t.columns.len())
                .map(|i| {
                    t.rows
                        .iter()
                        .map(|r| r.get(i).map_or(0, |c| c.chars().count()))
                        .chain([t.columns[i].chars().count()])
                        .max()
                        .unwrap_or(0)
                })
                .collect();
            let line = |cells: &[String]| {
                cells
                    .iter()
                    .enumerate()
                    .map(|(i, c)| format!("{:>w$}", c, w = w.get(i).copied().unwrap_or(0)))
                    .collect::<Vec<_>>()
                    .join("  ")
            };
            s.push_str(&format!("  {}\n", line(&t.columns)));
            for r in &t.rows {
                s.push_str(&format!("  {}\n", line(r)));
            }
        }
        s
    }

    /// Markdown: a heading, notes as a list, pipe tables.
    pub fn markdown(&self) -> String {
        let mut s = format!("## {}\n\n", self.header());
        for n in &self.notes {
            s.push_str(&format!("- {n}\n"));
        }
        for t in &self.tables {
            s.push_str(&format!("\n### {}\n\n", t.title));
            s.push_str(&format!("| {} |\n", t.columns.join(" | ")));
            s.push_str(&format!(
                "|{}\n",
                t.columns.iter().map(|_| "---:|").collect::<String>()
            ));
            for r in &t.rows {
                s.push_str(&format!("| {} |\n", r.join(" | ")));
            }
        }
        s
    }

    /// CSV: every table, each preceded by a `# title` line.
    pub fn csv(&self) -> String {
        let mut s = String::new();
        for t in &self.tables {
            s.push_str(&format!("# {}\n", t.title));
            s.push_str(&csv_line(&t.columns));
            for r in &t.rows {
                s.push_str(&csv_line(r));
            }
        }
        s
    }
}

/// One CSV line, quoting cells that need it.
pub fn csv_line(cells: &[String]) -> String {
    let mut s = cells
        .iter()
        .map(|c| {
            if c.contains([',', '"', '\n']) {
                format!("\"{}\"", c.replace('"', "\"\""))
            } else {
                c.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(",");
    s.push('\n');
    s
}

/// A number for a table: integers without decimals, others with `digits`.
pub fn fmt(v: f64, digits: usize) -> String {
    if v.is_nan() {
        "-".into()
    } else if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v:.digits$}")
    }
}
