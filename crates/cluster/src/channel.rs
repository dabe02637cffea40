//! The exchange: one small timely dataflow per kind of record, an input
//! whose records travel to the process their routing key names and a sink
//! that keeps what arrives. Each call of [`Channel::round`] is one epoch:
//! every process produces its records (the dataflow moves them while they
//! are produced), closes the epoch, and works until every record of the
//! epoch has reached its sink. All processes call the same rounds in the
//! same order, so a round is also a barrier.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::rc::Rc;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::operator::Operator;
use timely::dataflow::operators::vec::Input;
use timely::dataflow::InputHandleVec;
use timely::worker::Worker;
use timely::ExchangeData;

/// Records produced between two steps of the dataflow: a step moves them
/// on, so no process buffers a whole layer before sending it.
const STEP_EVERY: usize = 1 << 15;
/// Fewest received records of a round worth compacting.
const COMPACT_MIN: usize = 1 << 20;

/// Records of type `D` sent to the process their route names.
pub(crate) struct Channel<D: ExchangeData + Clone> {
    input: InputHandleVec<u64, D>,
    /// What arrived, by epoch: a faster peer may send the next round's
    /// records before this process has taken the last round's.
    received: Rc<RefCell<BTreeMap<u64, Vec<D>>>>,
    /// The sink's input frontier: every epoch before it has arrived.
    frontier: Rc<Cell<u64>>,
    epoch: u64,
    route: fn(&D) -> u64,
    /// Merges duplicates among a round's received records in place, when
    /// the caller only wants them distinct (children of a layer, most of
    /// them duplicates): applied as they pile up, so that a process holds
    /// about twice its distinct share, not every child sent to it.
    compact: Option<fn(&mut Vec<D>)>,
    me: u64,
    peers: u64,
    /// Records this process sent to other processes over all rounds (its
    /// own stay in memory and are not counted).
    pub(crate) remote: u64,
}

impl<D: ExchangeData + Clone> Channel<D> {
    /// Builds the channel's dataflow on `worker`; `route` maps a record to
    /// a hash whose remainder by the number of processes is its owner.
    /// Every process must build its channels in the same order.
    pub(crate) fn new(
        worker: &mut Worker,
        route: fn(&D) -> u64,
        compact: Option<fn(&mut Vec<D>)>,
    ) -> Self {
        let received: Rc<RefCell<BTreeMap<u64, Vec<D>>>> = Rc::new(RefCell::new(BTreeMap::new()));
        let frontier = Rc::new(Cell::new(0));
        let (sink, seen) = (Rc::clone(&received), Rc::clone(&frontier));
        let input = worker.dataflow::<u64, _, _>(move |scope| {
            let (input, stream) = scope.new_input::<D>();
            stream.sink(
                Exchange::new(move |d: &D| route(d)),
                "Keep",
                move |(input, frontier)| {
                    input.for_each(|cap, data| {
                        let t = cap.least().copied().unwrap_or(0);
                        sink.borrow_mut().entry(t).or_default().append(data)
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
            route,
            compact,
            me: worker.index() as u64,
            peers: worker.peers() as u64,
            remote: 0,
        }
    }

    /// One round: `produce` hands every record of this process to the
    /// closure it is given; returns the records routed to this process
    /// (in no particular order).
    pub(crate) fn round(
        &mut self,
        worker: &mut Worker,
        produce: impl FnOnce(&mut dyn FnMut(D)),
    ) -> Vec<D> {
        let mut n = 0usize;
        let mut remote = 0u64;
        let input = &mut self.input;
        let (route, me, peers) = (self.route, self.me, self.peers);
        let (received, epoch, compact) = (Rc::clone(&self.received), self.epoch, self.compact);
        let mut limit = COMPACT_MIN;
        let mut tidy = || {
            let Some(compact) = compact else {
                return;
            };
            let mut r = received.borrow_mut();
            if let Some(v) = r.get_mut(&epoch).filter(|v| v.len() > limit) {
                compact(v);
                limit = (2 * v.len()).max(COMPACT_MIN);
            }
        };
        produce(&mut |d| {
            // The owner as timely's exchange finds it (the remainder).
            remote += (peers > 1 && route(&d) % peers != me) as u64;
            input.send(d);
            n += 1;
            if n.is_multiple_of(STEP_EVERY) {
                worker.step();
                tidy();
            }
        });
        self.remote += remote;
        self.epoch += 1;
        self.input.advance_to(self.epoch);
        while self.frontier.get() < self.epoch {
            worker.step();
            tidy();
        }
        self.received
            .borrow_mut()
            .remove(&(self.epoch - 1))
            .unwrap_or_default()
    }
}
