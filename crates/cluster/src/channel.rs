//! The exchange: one small timely dataflow per kind of record, an input
//! whose batches of records travel to the process they are addressed to
//! and a sink that keeps what arrives. Each call of [`Channel::round`] is
//! one epoch: every process produces its records (the dataflow moves them
//! while they are produced), closes the epoch, and works until every
//! record of the epoch has reached its sink. All processes call the same
//! rounds in the same order, so a round is also a barrier.
//!
//! Records travel in batches, one per destination: timely routes,
//! buffers and serialises a batch as one record, so its per-record costs
//! (a call of the routing function, a push into a buffer, a serialiser
//! call) are paid once a batch instead of once a child. The owner of a
//! record is the caller's function, given to each round, so it may
//! depend on what the rounds before found (which layers are ranked).

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::vec::Input;
use timely::dataflow::InputHandleVec;
use timely::worker::Worker;
use timely::ExchangeData;

/// Bytes of a batch's records: enough records that timely's per-record
/// costs vanish (2,048 ranks, 1,024 positions), few enough bytes that
/// the batches in flight stay a few MB (timely buffers up to 256 records,
/// here batches, per destination).
const BATCH_BYTES: usize = 1 << 13;
/// Records produced between two steps of the dataflow: a step moves them
/// on, so no process buffers a whole layer before sending it.
const STEP_EVERY: usize = 1 << 15;
/// Fewest received records of a round worth compacting.
const COMPACT_MIN: usize = 1 << 20;

/// A batch: its destination process, and the records.
type Batch<D> = (u64, Vec<D>);

/// What a round's producer hands its records to: one at a time
/// ([`Outbox::send`]), or a slice at a time ([`Outbox::send_all`]: one
/// indirect call a slice, the routing of each record compiled into the
/// loop). A producer of many small records (a ranked layer's children,
/// tens of millions of ranks) sends slices: a call a rank cost the
/// English count on two processes 7 % more instructions.
pub(crate) trait Outbox<D> {
    fn send(&mut self, d: D);
    fn send_all(&mut self, ds: &[D]);
}

/// The [`Outbox`] of a round: each record goes to its process's batch
/// (the hot path, inlined into [`Outbox::send_all`]'s loop); a full batch
/// goes to `full`, and every [`STEP_EVERY`] records the dataflow takes a
/// step (`tick`), both out of line.
struct Route<'a, D, O> {
    owner: O,
    /// The number of processes less one, when it is a power of two.
    mask: Option<u64>,
    peers: u64,
    out: Vec<Vec<D>>,
    batch: usize,
    n: usize,
    full: &'a mut dyn FnMut(usize, Vec<D>),
    tick: &'a mut dyn FnMut(),
}

impl<D, O: Fn(&D) -> u64> Route<'_, D, O> {
    #[inline(always)]
    fn route(&mut self, d: D) {
        // The owner is the route's remainder by the number of processes
        // (a mask when that is a power of two: a division per record
        // showed in profiles).
        let r = (self.owner)(&d);
        let p = match self.mask {
            Some(m) => (r & m) as usize,
            None => (r % self.peers) as usize,
        };
        let v = &mut self.out[p];
        v.push(d);
        if v.len() >= self.batch {
            let v = std::mem::replace(v, Vec::with_capacity(self.batch));
            (self.full)(p, v);
        }
        self.n += 1;
        if self.n.is_multiple_of(STEP_EVERY) {
            (self.tick)();
        }
    }
}

impl<D: Clone, O: Fn(&D) -> u64> Outbox<D> for Route<'_, D, O> {
    fn send(&mut self, d: D) {
        self.route(d)
    }
    fn send_all(&mut self, ds: &[D]) {
        for d in ds {
            self.route(d.clone())
        }
    }
}

/// Records of type `D` sent to the process their route names.
pub(crate) struct Channel<D: ExchangeData + Clone> {
    input: InputHandleVec<u64, Batch<D>>,
    /// What arrived, by epoch: a faster peer may send the next round's
    /// records before this process has taken the last round's.
    received: Rc<RefCell<BTreeMap<u64, Vec<Vec<D>>>>>,
    /// The sink's input frontier: every epoch before it has arrived.
    frontier: Rc<Cell<u64>>,
    epoch: u64,
    me: u64,
    peers: u64,
    /// Records this process sent to other processes over all rounds (its
    /// own stay in memory and are not counted).
    pub(crate) remote: u64,
}

impl<D: ExchangeData + Clone> Channel<D> {
    /// Builds the channel's dataflow on `worker`. Every process must build
    /// its channels in the same order.
    pub(crate) fn new(worker: &mut Worker) -> Self {
        let received: Rc<RefCell<BTreeMap<u64, Vec<Vec<D>>>>> =
            Rc::new(RefCell::new(BTreeMap::new()));
        let frontier = Rc::new(Cell::new(0));
        let (sink, seen) = (Rc::clone(&received), Rc::clone(&frontier));
        let input = worker.dataflow::<u64, _, _>(move |scope| {
            let (input, stream) = scope.new_input::<Batch<D>>();
            stream.sink(
                Exchange::new(|b: &Batch<D>| b.0),
                "Keep",
                move |(input, frontier)| {
                    input.for_each(|cap, data| {
                        let t = cap.least().copied().unwrap_or(0);
                        let mut s = sink.borrow_mut();
                        let kept = s.entry(t).or_default();
                        kept.extend(data.drain(..).map(|b| b.1).filter(|v| !v.is_empty()));
                    });
                    seen.set(frontier.frontier().first().copied().unwrap_or(u64::MAX));
                },
            );
            input
        });
        Channel {
            input,
            received,
            frontier,
            epoch: 0,
            me: worker.index() as u64,
            peers: worker.peers() as u64,
            remote: 0,
        }
    }

    /// One round: `produce` hands every record of this process to the
    /// [`Outbox`] it is given, `owner` names each record's process (its
    /// remainder by the number of processes); returns the records routed
    /// to this process (in no particular order). `compact`, when given,
    /// merges duplicates among them in place, applied as they pile up
    /// (children of a layer, most of them duplicates), so that a process
    /// holds about twice its distinct share, not every child sent to it.
    pub(crate) fn round(
        &mut self,
        worker: &mut Worker,
        owner: impl Fn(&D) -> u64,
        compact: Option<fn(&mut Vec<D>)>,
        produce: impl FnOnce(&mut dyn Outbox<D>),
    ) -> Vec<D> {
        let mut got: Vec<D> = Vec::new();
        let mut limit = COMPACT_MIN;
        self.round_into(worker, owner, produce, &mut |batch| {
            if got.is_empty() {
                got = std::mem::take(batch);
            } else {
                got.append(batch);
            }
            if let Some(compact) = compact.filter(|_| got.len() > limit) {
                compact(&mut got);
                limit = (2 * got.len()).max(COMPACT_MIN);
            }
        });
        got
    }

    /// [`Channel::round`], the records routed here handed to `absorb`
    /// batch by batch as they arrive (it may empty each batch), not kept.
    pub(crate) fn round_into(
        &mut self,
        worker: &mut Worker,
        owner: impl Fn(&D) -> u64,
        produce: impl FnOnce(&mut dyn Outbox<D>),
        absorb: &mut dyn FnMut(&mut Vec<D>),
    ) {
        let (me, peers, epoch) = (self.me, self.peers, self.epoch);
        let received = Rc::clone(&self.received);
        let take = |absorb: &mut dyn FnMut(&mut Vec<D>)| {
            // Taken out before `absorb` runs: it never holds the sink's
            // borrow.
            let batches = received.borrow_mut().remove(&epoch);
            for mut b in batches.into_iter().flatten() {
                absorb(&mut b);
            }
        };
        let mut remote = 0u64;
        {
            let input = &mut self.input;
            let mut full = |p: usize, v: Vec<D>| {
                if p as u64 != me {
                    remote += v.len() as u64;
                }
                input.send((p as u64, v));
            };
            let mut tick = || {
                worker.step();
                take(absorb);
            };
            let mut route = Route {
                owner,
                mask: peers.is_power_of_two().then_some(peers - 1),
                peers,
                out: (0..peers).map(|_| Vec::new()).collect(),
                batch: (BATCH_BYTES / std::mem::size_of::<D>().max(1)).max(1),
                n: 0,
                full: &mut full,
                tick: &mut tick,
            };
            produce(&mut route);
            let out = route.out;
            for (p, v) in out.into_iter().enumerate() {
                if !v.is_empty() {
                    full(p, v);
                }
            }
        }
        self.remote += remote;
        self.epoch += 1;
        self.input.advance_to(self.epoch);
        while self.frontier.get() < self.epoch {
            worker.step();
            take(absorb);
        }
        take(absorb);
    }
}
