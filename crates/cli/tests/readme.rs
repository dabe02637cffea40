//! The command examples of the READMEs, run and compared with trycmd (the
//! way clap tests its own documentation).
//!
//! trycmd reads the markdown files themselves. In a ```` ```console ````
//! block a line `$ endgame …` is a command and the lines after it what it
//! prints (stdout and stderr together, exit status 0); `...` on a line of
//! its own stands for any lines and `[..]` for any text within a line
//! (times, memory). A block with another info string (`sh`, `text`, …) is
//! not run: the READMEs keep their slow or load-dependent runs there, and
//! say so. Beware: trycmd also runs a fence with no info string at all,
//! so every other block in these files needs one. And it drops the last
//! newline before the next `$` or the closing fence, so each command's
//! expected output ends with a blank line (or with `...`).
//!
//! Every command runs with an empty table cache (the examples show the
//! answers without solved tables) and without the plain progress lines
//! that a run longer than 5 s would print on stderr.
//!
//! Not here: `crates/web/README.md` (its examples query a running
//! server) and `crates/lab/README.md` (its runs write a database).

use std::path::{Path, PathBuf};

/// The READMEs whose `console` blocks are checked, from the workspace root.
const READMES: [&str; 5] = [
    "README.md",
    "crates/peg/README.md",
    "crates/martello/README.md",
    "crates/sim/README.md",
    "crates/pentago/README.md",
];

/// A fresh, empty directory for `ENDGAME_CACHE`, removed when dropped.
struct EmptyCache(PathBuf);

impl EmptyCache {
    fn new() -> Self {
        let dir = std::env::temp_dir().join(format!("endgame-readme-cache-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create the empty cache directory");
        EmptyCache(dir)
    }
}

impl Drop for EmptyCache {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn readme_examples() {
    let cache = EmptyCache::new();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let cases = trycmd::TestCases::new();
    cases
        .register_bin("endgame", Path::new(env!("CARGO_BIN_EXE_endgame")))
        .env(
            "ENDGAME_CACHE",
            cache.0.to_str().expect("a UTF-8 temp path"),
        )
        // One progress line a day: none within a test.
        .env("ENDGAME_PROGRESS_MS", "86400000");
    for file in READMES {
        cases.case(root.join(file));
    }
    cases.run();
}
