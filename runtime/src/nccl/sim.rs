//! Communicators over simulated devices: every rank lives in this process, and a collective
//! runs on the host when its last rank calls it.
//!
//! Each rank's calls are matched as NCCL matches them: the `k`th collective of every rank
//! together, the `k`th send from `a` to `b` with the `k`th receive by `b` from `a`. A call is
//! *posted* to the communicator's [`World`] with the addresses of its buffers; the thread
//! whose post completes a match checks that the ranks agree and moves the data (under the
//! world's lock), and every poster waits until its call has run. A posted call points into
//! buffers its caller borrows, so no call returns while its post is still in the world: a
//! call that gives up (timeout, a failed peer) first takes its posts back out, under the same
//! lock that running a match holds.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};

use cuprum_std::sim::{SimSlice, SimSliceMut};

use super::{CommElement, Id, Kind, Reducible};
use crate::error::{Error, Result};

/// What runs a matched call: the ranks' posts in rank order (a send and its receive for
/// point-to-point). Chosen by the element type when the call was made.
pub(crate) type Exec = fn(Kind, &[&Posted]) -> std::result::Result<(), String>;

/// A call on its way to a simulated communicator.
pub(crate) struct Post {
    pub world: Arc<World>,
    pub rank: usize,
    pub timeout: Duration,
    pub kind: Kind,
    pub elem: TypeId,
    pub elem_name: &'static str,
    pub send_len: Option<usize>,
    pub recv_len: Option<usize>,
    /// A `SimSlice<T>`.
    pub send: Option<Box<dyn Any + Send>>,
    /// A `SimSliceMut<T>`.
    pub recv: Option<Box<dyn Any + Send>>,
    pub exec: Exec,
}

/// A call waiting in a world for its match.
pub(crate) struct Posted {
    rank: usize,
    kind: Kind,
    elem: TypeId,
    elem_name: &'static str,
    send_len: Option<usize>,
    recv_len: Option<usize>,
    send: Option<Box<dyn Any + Send>>,
    recv: Option<Box<dyn Any + Send>>,
    exec: Exec,
}

/// A posted call, by what it waits for.
#[derive(Clone, Copy, Debug, Hash, PartialEq, Eq)]
enum Ticket {
    /// Collective number `seq` of `rank`.
    Coll { seq: u64, rank: usize },
    /// Message number `seq` from `from` to `to`, seen by the sender or the receiver.
    P2p {
        from: usize,
        to: usize,
        seq: u64,
        sender: bool,
    },
}

/// One simulated communicator.
pub(crate) struct World {
    size: usize,
    state: Mutex<State>,
    cond: Condvar,
}

struct State {
    /// Why the communicator was aborted.
    failed: Option<String>,
    joined: Vec<bool>,
    next_coll: Vec<u64>,
    colls: HashMap<u64, Vec<Option<Posted>>>,
    next_send: HashMap<(usize, usize), u64>,
    next_recv: HashMap<(usize, usize), u64>,
    sends: HashMap<(usize, usize, u64), Posted>,
    recvs: HashMap<(usize, usize, u64), Posted>,
    /// Results of calls that ran, until their posters pick them up.
    done: HashMap<Ticket, std::result::Result<(), String>>,
}

impl World {
    /// A communicator of `size` ranks; `joined` when all of them are made at once.
    pub fn new(size: usize, joined: bool) -> Arc<World> {
        Arc::new(World {
            size,
            state: Mutex::new(State {
                failed: None,
                joined: vec![joined; size],
                next_coll: vec![0; size],
                colls: HashMap::new(),
                next_send: HashMap::new(),
                next_recv: HashMap::new(),
                sends: HashMap::new(),
                recvs: HashMap::new(),
                done: HashMap::new(),
            }),
            cond: Condvar::new(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Joins rank `rank` to the communicator named by `id`, waiting up to `timeout` for the
    /// others.
    pub fn join(id: &Id, rank: usize, size: usize, timeout: Duration) -> Result<Arc<World>> {
        static WORLDS: Mutex<Vec<(Id, Weak<World>)>> = Mutex::new(Vec::new());
        let world = {
            let mut worlds = WORLDS.lock().unwrap_or_else(|e| e.into_inner());
            worlds.retain(|(_, w)| w.strong_count() > 0);
            match worlds
                .iter()
                .find_map(|(i, w)| (i == id).then(|| w.upgrade()))
            {
                Some(Some(w)) => w,
                _ => {
                    let w = World::new(size, false);
                    worlds.push((*id, Arc::downgrade(&w)));
                    w
                }
            }
        };
        if world.size != size {
            return Err(Error::Collective(format!(
                "from_rank: rank {rank} says the communicator has {size} ranks, but another rank said {}",
                world.size
            )));
        }
        let deadline = Instant::now() + timeout;
        let mut st = world.lock();
        if st.joined[rank] {
            return Err(Error::Collective(format!(
                "from_rank: rank {rank} joined this communicator twice"
            )));
        }
        st.joined[rank] = true;
        world.cond.notify_all();
        loop {
            if let Some(why) = &st.failed {
                return Err(aborted(why));
            }
            if st.joined.iter().all(|&j| j) {
                return Ok(world.clone());
            }
            let now = Instant::now();
            if now >= deadline {
                let missing: Vec<usize> = (0..size).filter(|&r| !st.joined[r]).collect();
                let why = format!(
                    "rank {rank} waited {timeout:?} for ranks {missing:?} to join the communicator"
                );
                st.failed = Some(why.clone());
                world.cond.notify_all();
                return Err(Error::Timeout(why));
            }
            st = world
                .cond
                .wait_timeout(st, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// `Err` when the communicator was aborted.
    pub fn check_alive(&self) -> Result<()> {
        match &self.lock().failed {
            Some(why) => Err(aborted(why)),
            None => Ok(()),
        }
    }

    /// Puts a call in the world; runs its match when it completes one.
    fn post(&self, p: Posted) -> Result<Ticket> {
        let mut st = self.lock();
        if let Some(why) = &st.failed {
            return Err(aborted(why));
        }
        let rank = p.rank;
        let ticket = match p.kind {
            Kind::Send { peer } => {
                let seq = bump(&mut st.next_send, (rank, peer));
                match st.recvs.remove(&(rank, peer, seq)) {
                    Some(r) => self.finish_p2p(&mut st, rank, peer, seq, p, r),
                    None => {
                        st.sends.insert((rank, peer, seq), p);
                    }
                }
                Ticket::P2p {
                    from: rank,
                    to: peer,
                    seq,
                    sender: true,
                }
            }
            Kind::Recv { peer } => {
                let seq = bump(&mut st.next_recv, (peer, rank));
                match st.sends.remove(&(peer, rank, seq)) {
                    Some(s) => self.finish_p2p(&mut st, peer, rank, seq, s, p),
                    None => {
                        st.recvs.insert((peer, rank, seq), p);
                    }
                }
                Ticket::P2p {
                    from: peer,
                    to: rank,
                    seq,
                    sender: false,
                }
            }
            _ => {
                let seq = st.next_coll[rank];
                st.next_coll[rank] += 1;
                let size = self.size;
                let slots = st
                    .colls
                    .entry(seq)
                    .or_insert_with(|| (0..size).map(|_| None).collect());
                slots[rank] = Some(p);
                if slots.iter().all(Option::is_some) {
                    let parts: Vec<Posted> = st
                        .colls
                        .remove(&seq)
                        .expect("the slots just filled")
                        .into_iter()
                        .flatten()
                        .collect();
                    let result = run_collective(seq, &parts);
                    if let Err(why) = &result {
                        st.failed = Some(why.clone());
                    }
                    for r in 0..size {
                        st.done
                            .insert(Ticket::Coll { seq, rank: r }, result.clone());
                    }
                    self.cond.notify_all();
                }
                Ticket::Coll { seq, rank }
            }
        };
        Ok(ticket)
    }

    fn finish_p2p(
        &self,
        st: &mut State,
        from: usize,
        to: usize,
        seq: u64,
        send: Posted,
        recv: Posted,
    ) {
        let result = if send.elem != recv.elem || send.send_len != recv.recv_len {
            Err(format!(
                "rank {from} sends {} × {} to rank {to}, which receives {} × {}",
                send.send_len.unwrap_or(0),
                send.elem_name,
                recv.recv_len.unwrap_or(0),
                recv.elem_name
            ))
        } else {
            (send.exec)(send.kind, &[&send, &recv])
        };
        if let Err(why) = &result {
            st.failed = Some(why.clone());
        }
        for sender in [true, false] {
            st.done.insert(
                Ticket::P2p {
                    from,
                    to,
                    seq,
                    sender,
                },
                result.clone(),
            );
        }
        self.cond.notify_all();
    }

    /// Waits until the call of `ticket` has run, or the deadline passes.
    fn wait(&self, ticket: Ticket, rank: usize, deadline: Instant) -> Result<()> {
        let mut st = self.lock();
        loop {
            if let Some(r) = st.done.remove(&ticket) {
                return r.map_err(Error::Nccl);
            }
            if let Some(why) = &st.failed {
                return Err(aborted(why));
            }
            let now = Instant::now();
            if now >= deadline {
                let what = match ticket {
                    Ticket::Coll { seq, .. } => {
                        let missing: Vec<usize> = st
                            .colls
                            .get(&seq)
                            .map(|s| (0..self.size).filter(|&r| s[r].is_none()).collect())
                            .unwrap_or_default();
                        format!("collective #{seq} for ranks {missing:?}")
                    }
                    Ticket::P2p { from, to, .. } if from == rank => {
                        format!("rank {to} to receive what it sends")
                    }
                    Ticket::P2p { from, .. } => format!("rank {from} to send"),
                };
                return Err(Error::Timeout(format!(
                    "rank {rank} waited past its timeout for {what} (one thread driving several ranks must put their calls in one nccl::Group)"
                )));
            }
            st = self
                .cond
                .wait_timeout(st, deadline - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// Takes the call of `ticket` back out of the world if it has not run (aborting the
    /// communicator: its peers would wait for it in vain), and drops its result if it has.
    fn cancel(&self, ticket: Ticket, why: &Error) {
        let mut st = self.lock();
        let was_pending = match ticket {
            Ticket::Coll { seq, rank } => st
                .colls
                .get_mut(&seq)
                .and_then(|slots| slots[rank].take())
                .is_some(),
            Ticket::P2p {
                from,
                to,
                seq,
                sender: true,
            } => st.sends.remove(&(from, to, seq)).is_some(),
            Ticket::P2p { from, to, seq, .. } => st.recvs.remove(&(from, to, seq)).is_some(),
        };
        st.done.remove(&ticket);
        if was_pending && st.failed.is_none() {
            st.failed = Some(why.to_string());
        }
        self.cond.notify_all();
    }
}

fn bump(counters: &mut HashMap<(usize, usize), u64>, key: (usize, usize)) -> u64 {
    let c = counters.entry(key).or_insert(0);
    *c += 1;
    *c - 1
}

fn aborted(why: &str) -> Error {
    Error::Nccl(format!("the communicator was aborted: {why}"))
}

/// Checks that the ranks agree about collective `seq` and runs it.
fn run_collective(seq: u64, parts: &[Posted]) -> std::result::Result<(), String> {
    let first = &parts[0];
    for p in &parts[1..] {
        if p.kind != first.kind || p.elem != first.elem || p.recv_len != first.recv_len {
            return Err(format!(
                "collective #{seq}: rank {} calls {:?} on {} × {} but rank {} calls {:?} on {} × {}",
                first.rank,
                first.kind,
                first.recv_len.unwrap_or(0),
                first.elem_name,
                p.rank,
                p.kind,
                p.recv_len.unwrap_or(0),
                p.elem_name
            ));
        }
    }
    let refs: Vec<&Posted> = parts.iter().collect();
    (first.exec)(first.kind, &refs)
}

/// Runs a group's calls: posts them all, then waits for each. On failure every call still
/// in a world is taken back out before returning.
pub(crate) fn run_group(posts: Vec<Post>) -> Result<()> {
    let mut tickets: Vec<(Arc<World>, Ticket, usize, Instant)> = Vec::new();
    let mut failure = None;
    for p in posts {
        let deadline = Instant::now() + p.timeout;
        let world = p.world;
        let rank = p.rank;
        let posted = Posted {
            rank,
            kind: p.kind,
            elem: p.elem,
            elem_name: p.elem_name,
            send_len: p.send_len,
            recv_len: p.recv_len,
            send: p.send,
            recv: p.recv,
            exec: p.exec,
        };
        match world.post(posted) {
            Ok(t) => tickets.push((world, t, rank, deadline)),
            Err(e) => {
                failure = Some(e);
                break;
            }
        }
    }
    if failure.is_none() {
        for (world, ticket, rank, deadline) in &tickets {
            if let Err(e) = world.wait(*ticket, *rank, *deadline) {
                failure = Some(e);
                break;
            }
        }
    }
    match failure {
        None => Ok(()),
        Some(e) => {
            for (world, ticket, _, _) in &tickets {
                world.cancel(*ticket, &e);
            }
            Err(e)
        }
    }
}

/// The input of a rank's part: its `send`, or its buffer for in-place calls.
fn input<T: CommElement>(p: &Posted) -> Vec<T> {
    match (&p.send, &p.recv) {
        (Some(s), _) => s
            .downcast_ref::<SimSlice<T>>()
            .expect("the element type was checked")
            .to_vec()
            .unwrap_or_default(), // never `Err`: every bit pattern of a scalar is a value
        (None, Some(r)) => r
            .downcast_ref::<SimSliceMut<T>>()
            .expect("the element type was checked")
            .as_slice()
            .to_vec()
            .unwrap_or_default(),
        (None, None) => Vec::new(),
    }
}

/// Writes `data` into a rank's `recv`.
fn output<T: CommElement>(p: &Posted, data: &[T]) {
    if let Some(r) = &p.recv {
        r.downcast_ref::<SimSliceMut<T>>()
            .expect("the element type was checked")
            .as_slice()
            .copy_from(data);
    }
}

/// Runs a matched call that moves data.
pub(crate) fn exec_move<T: CommElement>(
    kind: Kind,
    parts: &[&Posted],
) -> std::result::Result<(), String> {
    match kind {
        Kind::Broadcast { root } => {
            let data = input::<T>(parts[root]);
            parts.iter().for_each(|p| output(p, &data));
        }
        Kind::AllGather => {
            let all: Vec<T> = parts.iter().flat_map(|p| input::<T>(p)).collect();
            parts.iter().for_each(|p| output(p, &all));
        }
        Kind::Send { .. } | Kind::Recv { .. } => output(parts[1], &input::<T>(parts[0])),
        _ => unreachable!("reductions run in exec_reduce"),
    }
    Ok(())
}

/// Runs a matched reduction.
pub(crate) fn exec_reduce<T: Reducible>(
    kind: Kind,
    parts: &[&Posted],
) -> std::result::Result<(), String> {
    let inputs: Vec<Vec<T>> = parts.iter().map(|p| input::<T>(p)).collect();
    match kind {
        Kind::AllReduce(op) => {
            let r = T::sim_reduce(op, &inputs);
            parts.iter().for_each(|p| output(p, &r));
        }
        Kind::Reduce { op, root } => output(parts[root], &T::sim_reduce(op, &inputs)),
        Kind::ReduceScatter(op) => {
            let r = T::sim_reduce(op, &inputs);
            let block = parts[0].recv_len.unwrap_or(0);
            for (i, p) in parts.iter().enumerate() {
                output(p, &r[i * block..(i + 1) * block]);
            }
        }
        _ => unreachable!("data movement runs in exec_move"),
    }
    Ok(())
}
