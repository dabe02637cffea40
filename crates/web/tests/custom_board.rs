//! A large custom peg board (12×10, no symmetry that helps): its pagoda
//! functions take minutes of linear programming in all, so a hint derives
//! only what its time allows, off the server's request threads, and the
//! server keeps answering meanwhile.

use endgame_web::{serve_on, AppState, Limits};
use std::net::SocketAddr;
use std::time::{Duration, Instant};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

async fn get(addr: SocketAddr, path: &str) -> (u16, String, Duration) {
    let t0 = Instant::now();
    let mut s = TcpStream::connect(addr).await.unwrap();
    let req = format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.unwrap();
    let text = String::from_utf8_lossy(&out).to_string();
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = text.split_once("\r\n\r\n").map_or("", |b| b.1).to_string();
    (status, body, t0.elapsed())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hints_on_a_large_custom_board_keep_their_time_and_the_server_answers() {
    let dir = std::env::temp_dir().join(format!("endgame-custom-board-{}", std::process::id()));
    let state = AppState::with_cache(
        Limits {
            build_tables: false,
            ..Limits::default()
        },
        &dir,
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(serve_on(listener, state, async {
        let _ = rx.await;
    }));
    // All pegs but the corner: 119 pegs.
    let art: String = (0..10)
        .map(|r| {
            if r == 0 {
                format!(".{}", "o".repeat(11))
            } else {
                "o".repeat(12)
            }
        })
        .collect::<Vec<_>>()
        .join("%0A");
    let hint = format!("/api/peg/hints?time_ms=100&art={art}");
    let asks: Vec<_> = (0..4)
        .map(|_| {
            let h = hint.clone();
            tokio::spawn(async move { get(addr, &h).await })
        })
        .collect();
    // The status page answers while the four run.
    let mut slowest_status = Duration::ZERO;
    for _ in 0..5 {
        let (code, _, t) = get(addr, "/api/status").await;
        assert_eq!(code, 200);
        slowest_status = slowest_status.max(t);
        tokio::time::sleep(Duration::from_millis(30)).await;
    }
    for a in asks {
        let (code, body, t) = a.await.unwrap();
        assert_eq!(code, 200, "{body}");
        assert!(body.contains("\"moves\""), "{body}");
        // 100 ms for the search and at most 50 ms of linear programs,
        // behind at most one other request per solve permit; generous
        // for a loaded machine (before, one such hint took 123 s).
        assert!(t < Duration::from_millis(1500), "a hint took {t:?}");
    }
    assert!(
        slowest_status < Duration::from_millis(500),
        "status took {slowest_status:?}"
    );
    let _ = tx.send(());
}
