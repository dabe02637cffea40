//! What every crate's `tests/fuzz.rs` shares (each includes this file by
//! path): the number of cases, the checked-in corpus, and the input
//! strategies — random text and bytes, text from a parser's own alphabet,
//! and mutations of the corpus's inputs, which get past a parser's first
//! checks where random text rarely does.
//!
//! The number of cases per parser comes from `ENDGAME_FUZZ_CASES`
//! (default [`DEFAULT_CASES`], a few seconds per crate). A long run:
//!
//! ```text
//! ENDGAME_FUZZ_CASES=10000000 cargo test --profile ci -p endgame-peg --test fuzz -- --test-threads 1
//! ```
//!
//! Corpus files (`tests/fuzz-corpus/<parser>.txt`) hold one input a line.
//! Lines that are empty or start with `#` are skipped. Escapes: `\n`,
//! `\r`, `\t`, `\0`, `\\`, `\#` (a `#`, so an input may start with one),
//! `\z` (nothing: a line of just `\z` is the empty input, and `a \z`
//! keeps a trailing space) and `\u{HEX}`.
#![allow(dead_code)]

use proptest::prelude::*;
use proptest::test_runner::Config;
use std::sync::Arc;

/// The environment variable giving the cases per parser.
pub const CASES_VAR: &str = "ENDGAME_FUZZ_CASES";

/// Cases per parser when `ENDGAME_FUZZ_CASES` is not set.
pub const DEFAULT_CASES: u32 = 20_000;

/// Longest input a mutation builds (in characters).
pub const MAX_LEN: usize = 4_096;

/// Cases per parser: `ENDGAME_FUZZ_CASES` (digits, `_` allowed), else
/// [`DEFAULT_CASES`].
pub fn cases() -> u32 {
    match std::env::var(CASES_VAR) {
        Ok(v) => v
            .trim()
            .replace('_', "")
            .parse()
            .unwrap_or_else(|_| panic!("{CASES_VAR} must be a number of cases, got `{v}`")),
        Err(_) => DEFAULT_CASES,
    }
}

/// The proptest configuration of a fuzz test: [`cases`] cases, failures
/// not persisted (a failing input belongs in the corpus, escaped).
pub fn config() -> Config {
    Config {
        cases: cases(),
        failure_persistence: None,
        max_shrink_iters: 10_000,
        ..Config::default()
    }
}

/// Reads one corpus line (see the module documentation for escapes).
pub fn unescape(line: &str) -> String {
    let mut out = String::new();
    let mut cs = line.chars();
    while let Some(c) = cs.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match cs.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('t') => out.push('\t'),
            Some('0') => out.push('\0'),
            Some('\\') => out.push('\\'),
            Some('#') => out.push('#'),
            Some('z') => {}
            Some('u') => {
                let rest: String = cs.by_ref().take_while(|&c| c != '}').collect();
                let hex = rest
                    .strip_prefix('{')
                    .unwrap_or_else(|| panic!("bad \\u escape in corpus line `{line}`"));
                let ch = u32::from_str_radix(hex, 16)
                    .ok()
                    .and_then(char::from_u32)
                    .unwrap_or_else(|| panic!("bad \\u escape in corpus line `{line}`"));
                out.push(ch);
            }
            other => panic!("unknown escape \\{other:?} in corpus line `{line}`"),
        }
    }
    out
}

/// Writes an input as a corpus line ([`unescape`] reads it back).
pub fn escape(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            '\\' => out.push_str("\\\\"),
            '#' if i == 0 => out.push_str("\\#"),
            c if c.is_control() || c == '\u{FEFF}' => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32))
            }
            c => out.push(c),
        }
    }
    if s.is_empty() || s.ends_with(' ') {
        out.push_str("\\z");
    }
    out
}

/// The inputs of `tests/fuzz-corpus/<name>.txt` under `manifest_dir`.
pub fn corpus(manifest_dir: &str, name: &str) -> Vec<String> {
    let path = format!("{manifest_dir}/tests/fuzz-corpus/{name}.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let inputs: Vec<String> = text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(unescape)
        .collect();
    assert!(!inputs.is_empty(), "{path} has no inputs");
    inputs
}

/// Text that often means something to a parser: numbers at and past the
/// integer limits, separators, whitespace, odd Unicode.
pub const TOKENS: &[&str] = &[
    "0",
    "1",
    "-1",
    "+1",
    "00",
    "7",
    "9",
    "35",
    "255",
    "256",
    "65535",
    "65536",
    "4294967296",
    "9223372036854775807",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999",
    "1e308",
    "1e999",
    "-0",
    "0.5",
    "inf",
    "NaN",
    " ",
    "  ",
    "\t",
    "\n",
    "\r\n",
    "/",
    ",",
    ",,",
    "=",
    ":",
    ";",
    "-",
    ".",
    "o",
    "X",
    "m",
    "\0",
    "é",
    "\u{FEFF}",
    "\u{1F600}",
    "\u{0301}",
];

/// One edit of a mutation; positions are taken modulo the length.
#[derive(Clone, Debug)]
enum Edit {
    Insert(usize, char),
    Delete(usize),
    Replace(usize, char),
    /// Copies `len` characters from the first position to the second.
    Duplicate(usize, usize, usize),
    Swap(usize, usize),
    Truncate(usize),
    /// Inserts a piece of another corpus input.
    Splice(usize, usize, usize, usize),
    Token(usize, usize),
    Case(usize),
    /// The whole input again, after itself.
    Double,
}

fn apply(seeds: &[String], seed: usize, edits: &[Edit]) -> String {
    let mut s: Vec<char> = seeds[seed % seeds.len()].chars().collect();
    for e in edits {
        let n = s.len();
        let at = |i: usize| i % (n + 1);
        let on = |i: usize| i % n.max(1);
        match *e {
            Edit::Insert(i, c) => s.insert(at(i), c),
            Edit::Delete(i) if n > 0 => {
                s.remove(on(i));
            }
            Edit::Replace(i, c) if n > 0 => s[on(i)] = c,
            Edit::Duplicate(from, len, to) if n > 0 => {
                let from = on(from);
                let piece: Vec<char> = s[from..(from + len).min(n)].to_vec();
                let to = at(to);
                s.splice(to..to, piece);
            }
            Edit::Swap(i, j) if n > 0 => s.swap(on(i), on(j)),
            Edit::Truncate(i) => s.truncate(at(i)),
            Edit::Splice(other, from, len, to) => {
                let o: Vec<char> = seeds[other % seeds.len()].chars().collect();
                if !o.is_empty() {
                    let from = from % o.len();
                    let to = at(to);
                    s.splice(to..to, o[from..(from + len).min(o.len())].iter().copied());
                }
            }
            Edit::Token(t, i) => {
                let i = at(i);
                s.splice(i..i, TOKENS[t % TOKENS.len()].chars());
            }
            Edit::Case(i) if n > 0 => {
                let c = s[on(i)];
                s[on(i)] = if c.is_ascii_lowercase() {
                    c.to_ascii_uppercase()
                } else {
                    c.to_ascii_lowercase()
                };
            }
            Edit::Double => s.extend_from_within(..),
            _ => {}
        }
        s.truncate(MAX_LEN);
    }
    s.into_iter().collect()
}

/// A character: mostly from `alphabet`, sometimes any at all.
fn char_from(alphabet: &'static str) -> BoxedStrategy<char> {
    let chars: Vec<char> = alphabet.chars().collect();
    if chars.is_empty() {
        return any::<char>().boxed();
    }
    prop_oneof![4 => proptest::sample::select(chars), 1 => any::<char>()].boxed()
}

fn edit(alphabet: &'static str) -> impl Strategy<Value = Edit> {
    let c = char_from(alphabet);
    prop_oneof![
        3 => (any::<usize>(), c.clone()).prop_map(|(i, c)| Edit::Insert(i, c)),
        3 => any::<usize>().prop_map(Edit::Delete),
        3 => (any::<usize>(), c).prop_map(|(i, c)| Edit::Replace(i, c)),
        1 => (any::<usize>(), 1..16usize, any::<usize>())
            .prop_map(|(f, l, t)| Edit::Duplicate(f, l, t)),
        1 => (any::<usize>(), any::<usize>()).prop_map(|(i, j)| Edit::Swap(i, j)),
        1 => any::<usize>().prop_map(Edit::Truncate),
        1 => (any::<usize>(), any::<usize>(), 1..64usize, any::<usize>())
            .prop_map(|(o, f, l, t)| Edit::Splice(o, f, l, t)),
        2 => (any::<usize>(), any::<usize>()).prop_map(|(t, i)| Edit::Token(t, i)),
        1 => any::<usize>().prop_map(Edit::Case),
        1 => Just(Edit::Double),
    ]
}

/// A corpus input with one to eight edits.
pub fn mutated(seeds: Vec<String>, alphabet: &'static str) -> BoxedStrategy<String> {
    let seeds = Arc::new(seeds);
    (
        any::<usize>(),
        proptest::collection::vec(edit(alphabet), 1..8),
    )
        .prop_map(move |(seed, edits)| apply(&seeds, seed, &edits))
        .boxed()
}

/// Inputs for a parser: random Unicode text, random bytes read as UTF-8
/// (lossily), text over the parser's `alphabet`, the corpus inputs as
/// they are, and (most often) mutations of them.
pub fn input(seeds: Vec<String>, alphabet: &'static str) -> BoxedStrategy<String> {
    let chars: Vec<char> = alphabet.chars().collect();
    let sel = seeds.clone();
    prop_oneof![
        1 => any::<String>(),
        1 => proptest::collection::vec(any::<u8>(), 0..64)
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
        2 => proptest::collection::vec(proptest::sample::select(chars), 0..80)
            .prop_map(|cs| cs.into_iter().collect::<String>()),
        1 => proptest::sample::select(sel),
        8 => mutated(seeds, alphabet),
    ]
    .boxed()
}

/// The tests of a crate's fuzz harness, one line a parser:
///
/// ```ignore
/// fuzz_support::fuzz_targets! {
///     fuzz_move: "move", MOVE_ALPHABET, check_move;
/// }
/// ```
///
/// gives `corpus_replays` (each check on every input of its corpus file
/// `tests/fuzz-corpus/<name>.txt`) and one proptest a parser (`fuzz_move`
/// here: [`config`]'s cases of [`input`] over that corpus and alphabet).
/// A check is a `fn(&str)` that panics when the parser misbehaves.
macro_rules! fuzz_targets {
    ($($test:ident: $corpus:literal, $alphabet:expr, $check:path;)+) => {
        #[test]
        fn corpus_replays() {
            $(
                for s in $crate::fuzz_support::corpus(env!("CARGO_MANIFEST_DIR"), $corpus) {
                    $check(&s);
                }
            )+
        }

        proptest::proptest! {
            #![proptest_config($crate::fuzz_support::config())]
            $(
                #[test]
                fn $test(s in $crate::fuzz_support::input(
                    $crate::fuzz_support::corpus(env!("CARGO_MANIFEST_DIR"), $corpus),
                    $alphabet,
                )) {
                    $check(&s);
                }
            )+
        }
    };
}
pub(crate) use fuzz_targets;

#[test]
fn corpus_escapes_round_trip() {
    for s in [
        "",
        " ",
        "a b \\ c\n",
        "#x",
        "x#",
        "\u{FEFF}o\0",
        "\t\r\n",
        "\u{1F600}",
    ] {
        assert_eq!(unescape(&escape(s)), s, "{s:?}");
    }
    assert_eq!(unescape("\\z"), "");
    assert_eq!(unescape("ab\\u{41}c"), "abAc");
}
