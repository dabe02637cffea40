//! The text of the peg-solitaire reports (`solve`, `count`, `boards`)
//! and the drawing helpers they share: each function returns the whole
//! text. The terminal play loop is [`crate::play`]; the other games'
//! texts live beside their commands.

use endgame_peg::api::parse_position;
use endgame_peg::api::Board;
use endgame_peg::api::BoardInfo;
use endgame_peg::api::{CountReport, Method, SolveReport};
use std::fmt::Write;

/// Width of the label column.
const LABEL: usize = 13;
/// Moves per line when a line of moves is listed.
const MOVES_PER_ROW: usize = 10;
/// Final positions drawn by `count` (all of them are in the JSON).
const DRAWN_FINALS: usize = 4;

/// The text of `endgame solve peg`.
pub fn solve(board: &Board, r: &SolveReport) -> String {
    let mut out = String::new();
    field(&mut out, "board", &board_line(board));
    field(&mut out, "start", &pegs(count_pegs(&r.start)));
    out.push_str(&drawing(board, &r.start));
    field(&mut out, "goal", &r.goal);
    field(&mut out, "method", method_name(r.method));
    match r.solvable {
        Some(true) => {
            field(&mut out, "result", "solvable");
            field(&mut out, "solution", &moves(r.line.len()));
            out.push_str(&move_rows(&r.line));
        }
        Some(false) => {
            let reason = r.reason.as_deref().unwrap_or("no line reaches the goal");
            field(&mut out, "result", &format!("impossible: {reason}"));
            best(&mut out, board, r, "best result");
        }
        None if r.method == Method::Genetic => {
            field(
                &mut out,
                "result",
                "not solved (the genetic search cannot prove impossibility)",
            );
            best(&mut out, board, r, "best found");
        }
        None => {
            field(&mut out, "result", "undecided within the budget");
            best(&mut out, board, r, "best found");
        }
    }
    field(&mut out, "expansions", &group(&r.expansions.to_string()));
    field(&mut out, "time", &time(r.time_ms));
    field(&mut out, "peak memory", &memory(r.peak_memory_bytes));
    out
}

/// The best result of an unsolved problem, the line to it and its end.
fn best(out: &mut String, board: &Board, r: &SolveReport, label: &str) {
    let proven = if r.best_proven { " (proven best)" } else { "" };
    let line = if r.line.is_empty() {
        "no move made".to_string()
    } else {
        moves(r.line.len())
    };
    field(
        out,
        label,
        &format!("{}{proven}, {line}", pegs_left(r.pegs_left)),
    );
    out.push_str(&move_rows(&r.line));
    if !r.line.is_empty() {
        field(out, "end", &pegs(r.pegs_left));
        out.push_str(&drawing(board, &r.end));
    }
}

/// The text of `endgame count peg`.
pub fn count(board: &Board, r: &CountReport) -> String {
    let mut out = String::new();
    field(&mut out, "board", &board_line(board));
    field(&mut out, "start", &pegs(count_pegs(&r.start)));
    out.push_str(&drawing(board, &r.start));
    field(&mut out, "goal", &r.goal);
    field(
        &mut out,
        "symmetry",
        &format!(
            "counts up to the {} of the board's {} symmetries that fix start and goal",
            r.symmetries,
            board.symmetries().len()
        ),
    );
    out.push('\n');
    // A goal-only count visits only part of the graph: no raw column.
    let header: &[&str] = if r.complete {
        &[
            "pegs",
            "positions",
            "up to symmetry",
            "to goal",
            "to goal up to symmetry",
        ]
    } else {
        &[
            "pegs",
            "visited up to symmetry",
            "to goal",
            "to goal up to symmetry",
        ]
    };
    let row = |pegs: String, positions: u64, reduced: u64, to_goal: u64, to_goal_reduced: u64| {
        let mut row = vec![pegs];
        if r.complete {
            row.push(group(&positions.to_string()));
        }
        row.push(group(&reduced.to_string()));
        row.push(group(&to_goal.to_string()));
        row.push(group(&to_goal_reduced.to_string()));
        row
    };
    let mut rows: Vec<Vec<String>> = r
        .layers
        .iter()
        .map(|l| {
            row(
                l.pegs.to_string(),
                l.positions,
                l.positions_reduced,
                l.to_goal,
                l.to_goal_reduced,
            )
        })
        .collect();
    rows.push(row(
        "total".into(),
        r.total_positions,
        r.total_positions_reduced,
        r.total_to_goal,
        r.total_to_goal_reduced,
    ));
    out.push_str(&table(header, &rows));
    out.push('\n');
    let solutions = r.solutions.as_deref().map_or("not counted".into(), group);
    field(&mut out, "solutions", &solutions);
    if !r.complete {
        field(
            &mut out,
            "note",
            "goal-only count: the position columns cover only what the search visited",
        );
    }
    let result = if r.solvable {
        format!("solvable, {} at best", pegs_left(r.best_pegs))
    } else if r.complete {
        format!("impossible, best result {}", pegs_left(r.best_pegs))
    } else {
        "impossible (a goal-only count does not look for the best result: count without --goal-only)".into()
    };
    field(&mut out, "result", &result);
    let shown = if r.solvable || r.complete {
        r.final_positions.len().min(DRAWN_FINALS)
    } else {
        0
    };
    let listed = if (r.final_positions.len() as u64) < r.final_positions_reduced {
        format!(", {} listed in --json", r.final_positions.len())
    } else {
        String::new()
    };
    if r.solvable || r.complete {
        field(
            &mut out,
            "final",
            &format!(
                "{} positions with {} up to symmetry{listed}{}",
                group(&r.final_positions_reduced.to_string()),
                pegs(r.best_pegs),
                if shown > 0 {
                    format!(", {shown} drawn:")
                } else {
                    String::new()
                }
            ),
        );
    }
    if shown > 0 {
        let drawings: Vec<String> = r.final_positions[..shown]
            .iter()
            .map(|p| drawing(board, p))
            .collect();
        out.push_str(&side_by_side(&drawings, 4));
    }
    field(&mut out, "time", &time(r.time_ms));
    field(
        &mut out,
        "memory",
        &format!(
            "{} in layers at most, {} peak",
            memory(Some(r.table_bytes as u64)),
            memory(r.peak_memory_bytes)
        ),
    );
    out
}

/// The text of `endgame boards`.
pub fn boards(list: &[BoardInfo]) -> String {
    let mut out = String::new();
    for (i, b) in list.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        field(&mut out, &b.name, &b.description);
        let vacancies = match b.default_vacancies.as_slice() {
            [] => String::new(),
            [one] => format!(", default vacancy {one}"),
            many => format!(", default vacancies {}", many.join(" ")),
        };
        field(
            &mut out,
            "",
            &format!("{} holes, {} symmetries{vacancies}", b.holes, b.symmetries),
        );
        out.push('\n');
        out.push_str(&indent(&b.art, 4));
    }
    out.push_str("\nAlso: triangleN, the triangular board of side N (3 to 10).\n");
    out
}

/// `label` padded, then `value`, then a newline.
fn field(out: &mut String, label: &str, value: &str) {
    let _ = writeln!(out, "{label:LABEL$}{value}");
}

fn board_line(board: &Board) -> String {
    let diagonal = if board.diagonal() {
        ", diagonal jumps"
    } else {
        ""
    };
    format!("{}, {} holes{diagonal}", board.name(), board.holes())
}

fn method_name(m: Method) -> &'static str {
    match m {
        Method::Dfs => "dfs (memoised depth-first search)",
        Method::Astar => "astar (best-first, weighted-cost heuristic)",
        Method::AstarManhattan => "astar-manhattan (best-first, Manhattan heuristic)",
        Method::Genetic => "genetic (weight vectors over hole classes)",
    }
}

/// A position drawn on its board, indented and framed by blank lines; the
/// notation itself if it does not fit the board.
fn drawing(board: &Board, position: &str) -> String {
    match parse_position(board, position) {
        Ok(pegs) => format!("\n{}\n", indent(&board.draw(|h| pegs[h]), 4)),
        Err(_) => format!("{:LABEL$}{position}\n", ""),
    }
}

fn count_pegs(position: &str) -> u32 {
    position.chars().filter(|&c| c == 'o').count() as u32
}

fn pegs(n: u32) -> String {
    if n == 1 {
        "1 peg".into()
    } else {
        format!("{n} pegs")
    }
}

fn pegs_left(n: u32) -> String {
    format!("{} left", pegs(n))
}

fn moves(n: usize) -> String {
    if n == 1 {
        "1 move".into()
    } else {
        format!("{n} moves")
    }
}

/// Moves numbered in rows: `   1  d2-d4 f3-d3 …`.
fn move_rows(line: &[String]) -> String {
    let mut out = String::new();
    for (i, row) in line.chunks(MOVES_PER_ROW).enumerate() {
        let _ = writeln!(out, "{:>6}  {}", i * MOVES_PER_ROW + 1, row.join(" "));
    }
    out
}

/// Digits grouped by thousands: `1234567` → `1,234,567`.
pub(crate) fn group(digits: &str) -> String {
    let n = digits.len();
    let mut out = String::with_capacity(n + n / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (n - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn time(ms: f64) -> String {
    if ms < 1.0 {
        format!("{ms:.3} ms")
    } else if ms < 1000.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{:.2} s", ms / 1000.0)
    }
}

fn memory(bytes: Option<u64>) -> String {
    match bytes {
        Some(b) if b < 1_000_000 => format!("{:.1} kB", b as f64 / 1e3),
        Some(b) if b < 10_000_000_000 => format!("{:.1} MB", b as f64 / 1e6),
        Some(b) => format!("{:.2} GB", b as f64 / 1e9),
        None => "unknown".into(),
    }
}

fn indent(text: &str, n: usize) -> String {
    text.lines()
        .map(|l| {
            if l.is_empty() {
                "\n".to_string()
            } else {
                format!("{:n$}{l}\n", "")
            }
        })
        .collect()
}

/// Text blocks next to each other, `gap` spaces apart.
fn side_by_side(blocks: &[String], gap: usize) -> String {
    let lines: Vec<Vec<&str>> = blocks
        .iter()
        .map(|b| b.lines().collect::<Vec<_>>())
        .collect();
    let widths: Vec<usize> = lines
        .iter()
        .map(|ls| ls.iter().map(|l| l.chars().count()).max().unwrap_or(0))
        .collect();
    let height = lines.iter().map(Vec::len).max().unwrap_or(0);
    let mut out = String::new();
    for row in 0..height {
        let mut line = String::new();
        for (ls, &w) in lines.iter().zip(&widths) {
            let cell = ls.get(row).copied().unwrap_or("");
            let _ = write!(line, "{cell:w$}{:gap$}", "");
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// A right-aligned table with a header row.
pub fn table<R: AsRef<[String]>>(header: &[&str], rows: &[R]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.len()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row.as_ref()) {
            *w = (*w).max(cell.len());
        }
    }
    let mut out = String::new();
    let mut line = String::new();
    for (h, &w) in header.iter().zip(&widths) {
        let _ = write!(line, "  {h:>w$}");
    }
    out.push_str(&line);
    out.push('\n');
    for row in rows {
        line.clear();
        for (cell, &w) in row.as_ref().iter().zip(&widths) {
            let _ = write!(line, "  {cell:>w$}");
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_thousands() {
        assert_eq!(group("0"), "0");
        assert_eq!(group("999"), "999");
        assert_eq!(group("1000"), "1,000");
        assert_eq!(group("29760"), "29,760");
        assert_eq!(group("1234567"), "1,234,567");
    }

    #[test]
    fn blocks_side_by_side() {
        let s = side_by_side(&["a\nbbb".into(), "cc\nd\ne".into()], 2);
        assert_eq!(s, "a    cc\nbbb  d\n     e\n");
    }

    #[test]
    fn tables_align_right() {
        let t = table(&["x", "yy"], &[["100".into(), "2".into()]]);
        assert_eq!(t, "    x  yy\n  100   2\n");
    }
}
