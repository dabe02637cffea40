//! Joining the cluster: every process listens on its own address and
//! connects to those of the processes before it, each connection opened
//! by a handshake that names the job, the number of processes and the
//! sender; then timely's communication threads take the sockets over.
//!
//! Timely's own connection code retries forever and prints to stdout;
//! here a peer that does not answer within the deadline, or answers for
//! another job or another number of processes, is a one-line error.

use crate::ClusterError;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};
use timely::communication::allocator::zero_copy::initialize::{
    initialize_networking_from_sockets, CommsGuard,
};
use timely::communication::allocator::{Allocator, ProcessBuilder};
use timely::communication::Hooks;
use timely::worker::Worker;

/// First bytes of every handshake ("endgame cluster", version 1).
const MAGIC: u64 = 0x656e_6467_636c_0001;

/// Where the processes of a cluster listen, and which one this is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cluster {
    /// `host:port` of every process, in process order.
    pub addresses: Vec<String>,
    /// This process's index in `addresses`.
    pub process: usize,
    /// How long to wait for every peer to connect.
    pub timeout: Duration,
}

/// Most processes a cluster may have.
pub const MAX_PROCESSES: usize = 1024;

impl Cluster {
    /// The cluster of a host file: one `host:port` a line; blank lines and
    /// lines starting with `#` are skipped.
    pub fn from_host_file(text: &str, process: usize) -> Result<Cluster, ClusterError> {
        let addresses: Vec<String> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty() && !l.starts_with('#'))
            .map(str::to_string)
            .collect();
        for (i, a) in addresses.iter().enumerate() {
            let ok = a
                .rsplit_once(':')
                .is_some_and(|(h, p)| !h.is_empty() && p.parse::<u16>().is_ok_and(|p| p > 0));
            if !ok {
                return Err(ClusterError::Config(format!(
                    "host file line {}: {a:?} is not host:port",
                    i + 1
                )));
            }
        }
        Cluster::new(addresses, process)
    }

    /// A cluster of the given addresses (at least one, at most
    /// [`MAX_PROCESSES`]) with the default timeout of 30 s.
    pub fn new(addresses: Vec<String>, process: usize) -> Result<Cluster, ClusterError> {
        if addresses.is_empty() {
            return Err(ClusterError::Config(
                "the host file names no process".into(),
            ));
        }
        if addresses.len() > MAX_PROCESSES {
            return Err(ClusterError::Config(format!(
                "the host file names {} processes, at most {MAX_PROCESSES} are allowed",
                addresses.len()
            )));
        }
        if process >= addresses.len() {
            return Err(ClusterError::Config(format!(
                "process {process} is not in the host file (processes 0 to {})",
                addresses.len() - 1
            )));
        }
        Ok(Cluster {
            addresses,
            process,
            timeout: Duration::from_secs(30),
        })
    }

    /// Number of processes.
    pub fn peers(&self) -> usize {
        self.addresses.len()
    }
}

/// A connected timely worker (one per process) and the guard of its
/// communication threads, dropped after the worker.
pub(crate) struct Joined {
    pub(crate) worker: Worker,
    // Joins the send and receive threads when dropped: after the worker
    // and every channel built on it, whose drops close the connections.
    _comms: Option<CommsGuard>,
}

/// Connects this process to every other and starts its timely worker.
/// `job` fingerprints the work (board, options, code version): peers must
/// agree on it.
pub(crate) fn join(cluster: &Cluster, job: u64) -> Result<Joined, ClusterError> {
    let sockets = connect(cluster, job)?;
    let hooks = Hooks::default();
    let local = ProcessBuilder::new_typed_vector(1, hooks.refill.clone(), None);
    let (mut builders, guard) =
        initialize_networking_from_sockets(local, sockets, cluster.process, 1, hooks)
            .map_err(|e| ClusterError::Network(format!("starting the exchange: {e}")))?;
    let builder = builders.pop().expect("one worker a process");
    let alloc = Allocator::Tcp(builder.build());
    let worker = Worker::new(Default::default(), alloc, Some(Instant::now()));
    Ok(Joined {
        worker,
        _comms: Some(guard),
    })
}

/// The handshake: magic, job, number of processes, sender.
fn hello(cluster: &Cluster, job: u64) -> [u8; 32] {
    let mut b = [0u8; 32];
    for (i, w) in [MAGIC, job, cluster.peers() as u64, cluster.process as u64]
        .iter()
        .enumerate()
    {
        b[i * 8..i * 8 + 8].copy_from_slice(&w.to_le_bytes());
    }
    b
}

/// Reads a peer's handshake and checks it against ours; the sender's
/// index.
fn check_hello(
    cluster: &Cluster,
    job: u64,
    stream: &mut TcpStream,
    deadline: Instant,
) -> Result<usize, ClusterError> {
    let left = deadline.saturating_duration_since(Instant::now());
    stream
        .set_read_timeout(Some(left.max(Duration::from_millis(10))))
        .map_err(|e| ClusterError::Network(e.to_string()))?;
    let mut b = [0u8; 32];
    stream.read_exact(&mut b).map_err(|e| {
        ClusterError::Network(format!("a peer connected but sent no handshake: {e}"))
    })?;
    stream
        .set_read_timeout(None)
        .map_err(|e| ClusterError::Network(e.to_string()))?;
    let w = |i: usize| u64::from_le_bytes(b[i * 8..i * 8 + 8].try_into().expect("8 bytes"));
    if w(0) != MAGIC {
        return Err(ClusterError::Network(
            "a peer that is not an endgame process of this version connected".into(),
        ));
    }
    let (peers, from) = (w(2) as usize, w(3) as usize);
    if peers != cluster.peers() {
        return Err(ClusterError::Config(format!(
            "process {from} counts {peers} processes, this one {}: the host files differ",
            cluster.peers()
        )));
    }
    if w(1) != job {
        return Err(ClusterError::Config(format!(
            "process {from} runs another count (board, options or version differ)"
        )));
    }
    if from >= peers || from == cluster.process {
        return Err(ClusterError::Config(format!(
            "a peer claims to be process {from}"
        )));
    }
    Ok(from)
}

fn resolve(address: &str) -> Result<Vec<SocketAddr>, ClusterError> {
    address
        .to_socket_addrs()
        .map(|a| a.collect())
        .map_err(|e| ClusterError::Network(format!("cannot resolve {address}: {e}")))
}

/// One socket to every other process (`None` at our own index).
fn connect(cluster: &Cluster, job: u64) -> Result<Vec<Option<TcpStream>>, ClusterError> {
    let me = cluster.process;
    let deadline = Instant::now() + cluster.timeout;
    let n = cluster.peers();
    let mut sockets: Vec<Option<TcpStream>> = (0..n).map(|_| None).collect();
    // Listen first, so that peers after us can connect while we dial.
    let listener = if me + 1 < n {
        let own = &cluster.addresses[me];
        let l = TcpListener::bind(resolve(own)?.as_slice())
            .map_err(|e| ClusterError::Network(format!("cannot listen on {own}: {e}")))?;
        l.set_nonblocking(true)
            .map_err(|e| ClusterError::Network(e.to_string()))?;
        Some(l)
    } else {
        None
    };
    let mine = hello(cluster, job);
    for (j, socket) in sockets.iter_mut().enumerate().take(me) {
        let address = &cluster.addresses[j];
        let targets = resolve(address)?;
        // The peer may not listen yet: retry with a short pause until the
        // deadline (connections are made once, at the start).
        let mut stream = loop {
            let tried = targets.iter().find_map(|t| {
                let left = deadline.saturating_duration_since(Instant::now());
                TcpStream::connect_timeout(
                    t,
                    left.clamp(Duration::from_millis(10), Duration::from_secs(2)),
                )
                .ok()
            });
            if let Some(s) = tried {
                break s;
            }
            if Instant::now() >= deadline {
                return Err(ClusterError::Network(format!(
                    "process {j} at {address} did not answer within {} s",
                    cluster.timeout.as_secs()
                )));
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        stream
            .set_nodelay(true)
            .and_then(|()| stream.write_all(&mine))
            .map_err(|e| ClusterError::Network(format!("process {j} at {address}: {e}")))?;
        let from = check_hello(cluster, job, &mut stream, deadline)?;
        if from != j {
            return Err(ClusterError::Config(format!(
                "{address} answers as process {from}, the host file says {j}"
            )));
        }
        *socket = Some(stream);
    }
    if let Some(listener) = listener {
        let mut missing = n - me - 1;
        while missing > 0 {
            match listener.accept() {
                Ok((mut stream, _)) => {
                    stream
                        .set_nonblocking(false)
                        .and_then(|()| stream.set_nodelay(true))
                        .map_err(|e| ClusterError::Network(e.to_string()))?;
                    let from = check_hello(cluster, job, &mut stream, deadline)?;
                    if from < me || sockets[from].is_some() {
                        return Err(ClusterError::Config(format!(
                            "process {from} connected twice or out of turn"
                        )));
                    }
                    stream
                        .write_all(&mine)
                        .map_err(|e| ClusterError::Network(format!("process {from}: {e}")))?;
                    sockets[from] = Some(stream);
                    missing -= 1;
                }
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                    if Instant::now() >= deadline {
                        let absent: Vec<String> = (me + 1..n)
                            .filter(|&j| sockets[j].is_none())
                            .map(|j| j.to_string())
                            .collect();
                        return Err(ClusterError::Network(format!(
                            "process {} did not connect within {} s",
                            absent.join(", "),
                            cluster.timeout.as_secs()
                        )));
                    }
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(e) => return Err(ClusterError::Network(format!("accepting peers: {e}"))),
            }
        }
    }
    Ok(sockets)
}
