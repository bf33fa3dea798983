//! `cuprum::Error`: everything that can go wrong on the host side, one enum.

use std::fmt;

use cuprum_std::Dim3;

/// The result type of Cuprum's host API.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong.
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// No CUDA driver (`libcuda.so`) or no CUDA device on this machine.
    NoGpu,
    /// `Device::gpu(n)` with `n` beyond the devices present.
    NoSuchDevice {
        /// The ordinal asked for.
        ordinal: usize,
        /// How many devices there are.
        count: usize,
    },
    /// `CUPRUM_DEVICE` holds something other than `gpu`, `gpu:N` or `sim`.
    BadDeviceSelector(String),
    /// A CUDA driver call failed.
    Driver {
        /// What Cuprum was doing.
        op: &'static str,
        /// The driver's error.
        source: cudarc::driver::DriverError,
    },
    /// A launch configuration the device cannot run; nothing was launched.
    LaunchConfig(String),
    /// A buffer that belongs to another device (or to the simulator) was passed to a launch
    /// or a copy.
    WrongDevice(String),
    /// A host slice and a device buffer of different lengths were copied.
    LengthMismatch {
        /// Elements in the destination.
        expected: usize,
        /// Elements in the source.
        found: usize,
    },
    /// An external tool (`ptxas`) is missing or failed.
    Tool(String),
    /// The operation does not exist on this kind of device (raw device pointers, cudarc
    /// interop and device memory queries on the simulator).
    Unsupported(String),
    /// An operation that a stream being captured into a [`Graph`](crate::Graph) cannot
    /// record, or a graph used wrongly.
    Capture(String),
    /// A kernel stopped at a failed runtime check (an out-of-bounds index, a division by
    /// zero, `step_by(0)`) or a failed assertion, `panic!` or `unreachable!`.
    KernelPanic(Box<KernelPanic>),
    /// The NCCL library cannot be loaded (`cuprum::nccl`); the message says what to install.
    NcclMissing(String),
    /// An NCCL call failed, or the simulator found ranks that disagree about a collective.
    Nccl(String),
    /// A collective or a communicator's creation waited longer than its timeout for a rank
    /// that never joined; the communicator is aborted.
    Timeout(String),
    /// A collective asked for something impossible (a rank, root or peer outside the
    /// communicator, a device twice in one communicator); refused before NCCL is called.
    Collective(String),
    /// An argument no call can work with (a histogram's empty range, say); nothing was
    /// launched.
    InvalidArgument(String),
    /// Device memory read into host values of an enum (or of a type holding one) holds bits
    /// that are no variant of it; nothing was returned (see [`DeviceEnum`](crate::DeviceEnum)).
    NotAVariant {
        /// The index of the first element holding such bits.
        index: usize,
        /// The enum's name.
        ty: &'static str,
        /// The integer found, as the enum's `repr` type reads it.
        value: i128,
        /// The `repr` type's name (`u8`).
        repr: &'static str,
    },
}

impl Error {
    /// The error of element `index` holding `e`.
    pub(crate) fn not_a_variant(index: usize, e: cuprum_std::sim::NotAValue) -> Error {
        Error::NotAVariant {
            index,
            ty: e.ty,
            value: e.value,
            repr: e.repr,
        }
    }
}

/// The error of an allocation that cannot be made, as the driver reports it: its byte size
/// overflows, or the memory is not there (the simulator's allocations report this too).
pub(crate) fn out_of_memory() -> Error {
    Error::Driver {
        op: "allocating memory",
        source: cudarc::driver::DriverError(
            cudarc::driver::sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY,
        ),
    }
}

/// Where and why a kernel stopped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelPanic {
    /// The kernel's name.
    pub kernel: String,
    /// What failed, in Rust's words, e.g. "index out of bounds: the len is 10 but the index
    /// is 12", or an assertion's formatted message.
    pub message: String,
    /// Source file of the failing expression.
    pub file: &'static str,
    /// Line of the failing expression (1-based).
    pub line: u32,
    /// Column of the failing expression (1-based).
    pub column: u32,
    /// The block that failed first.
    pub block: Dim3,
    /// The thread (within `block`) that failed first.
    pub thread: Dim3,
}

impl fmt::Display for KernelPanic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "kernel `{}` panicked at {}:{}:{}: {} (block ({}, {}, {}), thread ({}, {}, {}))",
            self.kernel,
            self.file,
            self.line,
            self.column,
            self.message,
            self.block.x,
            self.block.y,
            self.block.z,
            self.thread.x,
            self.thread.y,
            self.thread.z
        )
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoGpu => f.write_str("no CUDA GPU is available (no driver library or no device); use Device::simulator() to run kernels on the CPU"),
            Error::NoSuchDevice { ordinal, count } => {
                write!(f, "there is no GPU {ordinal}: this machine has {count} CUDA device(s)")
            }
            Error::BadDeviceSelector(s) => {
                write!(f, "CUPRUM_DEVICE is `{s}`; expected `gpu`, `gpu:N` or `sim`")
            }
            Error::Driver { op, source } => write!(f, "CUDA driver error while {op}: {source}"),
            Error::LaunchConfig(msg) => write!(f, "invalid launch configuration: {msg}"),
            Error::WrongDevice(msg) => f.write_str(msg),
            Error::LengthMismatch { expected, found } => {
                write!(f, "length mismatch: the destination holds {expected} elements but the source has {found}")
            }
            Error::Tool(msg) => f.write_str(msg),
            Error::Unsupported(msg) => f.write_str(msg),
            Error::Capture(msg) => write!(f, "graph capture: {msg}"),
            Error::KernelPanic(p) => p.fmt(f),
            Error::NcclMissing(msg) => f.write_str(msg),
            Error::Nccl(msg) => write!(f, "NCCL: {msg}"),
            Error::Timeout(msg) => write!(f, "timed out: {msg}"),
            Error::Collective(msg) => write!(f, "invalid collective: {msg}"),
            Error::NotAVariant { index, ty, value, repr } => write!(
                f,
                "element {index} holds {value}_{repr}, which is no variant of `{ty}`: device memory read as `{ty}` must hold one of its discriminants"
            ),
            Error::InvalidArgument(msg) => write!(f, "invalid argument: {msg}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Driver { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Attaches what Cuprum was doing to a driver error.
pub(crate) trait DriverContext<T> {
    fn during(self, op: &'static str) -> Result<T>;
}

impl<T> DriverContext<T> for std::result::Result<T, cudarc::driver::DriverError> {
    fn during(self, op: &'static str) -> Result<T> {
        self.map_err(|source| Error::Driver { op, source })
    }
}
