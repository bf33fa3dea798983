// NCCL has no arithmetic for `bool` (and a peer could write any byte into one): reductions
// refuse it at compile time, naming the types they take.
use cuprum::nccl::{Comm, ReduceOp};
use cuprum::prelude::*;

fn any_flag(comm: &Comm, flags: &mut DeviceBuffer<bool>) -> cuprum::Result<()> {
    comm.all_reduce_in_place(flags, ReduceOp::Max)
}

fn main() {}
