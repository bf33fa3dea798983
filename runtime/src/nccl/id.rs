//! `Id`: the unique id that lets the ranks of one communicator find each other, and the
//! helpers that hand it from the rank that made it to the others on one host.

use std::fmt;
use std::path::Path;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::device::Device;
use crate::error::{Error, Result};

/// Bytes in an NCCL unique id (`NCCL_UNIQUE_ID_BYTES`).
const ID_BYTES: usize = 128;

/// What a simulator id starts with (an NCCL id starts with its bootstrap root's magic and
/// address, never with these bytes).
const SIM_MARK: &[u8; 16] = b"cuprum-sim-id\0\0\0";

/// The unique id of a communicator: one rank makes it ([`Id::new`]) and hands it to every
/// other rank, which pass it to [`Comm::from_rank`](super::Comm::from_rank).
///
/// On a GPU it is NCCL's unique id (`ncclGetUniqueId`): it holds the address of a bootstrap
/// service that runs **in the process that made it**, so that process must be one of the
/// ranks (or outlive the communicator's creation). On the simulator it is a token that
/// names a communicator inside this process.
///
/// Across processes, write it as text ([`Display`](fmt::Display), 256 hex digits) and read it
/// back with [`str::parse`]; [`Id::share_through_file`] and [`Id::from_env`] do that for the
/// common one-host launch.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Id {
    bytes: [u8; ID_BYTES],
}

impl Id {
    /// A new id for a communicator over devices of `device`'s kind (GPU or simulator).
    ///
    /// # Errors
    /// [`Error::NcclMissing`] on a GPU when NCCL cannot be loaded; [`Error::Nccl`] when NCCL
    /// fails (no usable network interface for its bootstrap).
    pub fn new(device: &Device) -> Result<Id> {
        if device.is_simulator() {
            // Unique within the process is enough: simulated ranks never leave it.
            static NEXT: AtomicU64 = AtomicU64::new(0);
            let mut bytes = [0u8; ID_BYTES];
            bytes[..SIM_MARK.len()].copy_from_slice(SIM_MARK);
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            bytes[16..24].copy_from_slice(&n.to_le_bytes());
            bytes[24..28].copy_from_slice(&std::process::id().to_le_bytes());
            return Ok(Id { bytes });
        }
        super::gpu::unique_id().map(|internal| Id {
            bytes: internal.map(|c| c as u8),
        })
    }

    /// Whether this id names a simulator communicator.
    pub fn is_simulated(&self) -> bool {
        self.bytes.starts_with(SIM_MARK)
    }

    /// NCCL's representation.
    pub(crate) fn internal(&self) -> [std::ffi::c_char; ID_BYTES] {
        self.bytes.map(|b| b as std::ffi::c_char)
    }

    /// The raw bytes (what [`Display`](fmt::Display) writes as hex).
    pub fn as_bytes(&self) -> &[u8; 128] {
        &self.bytes
    }

    /// The id from the raw bytes of another rank's [`Id::as_bytes`].
    pub fn from_bytes(bytes: [u8; 128]) -> Id {
        Id { bytes }
    }

    /// The id in the environment variable `var` (as text, see [`Id`]): for a launcher that
    /// starts the other ranks with the id of the rank that made it.
    ///
    /// # Errors
    /// [`Error::Collective`] when the variable is unset or does not hold an id.
    pub fn from_env(var: &str) -> Result<Id> {
        let text = std::env::var(var).map_err(|_| {
            Error::Collective(format!(
                "the environment variable {var} does not hold a communicator id (set it to the id rank 0 made, as text)"
            ))
        })?;
        text.parse()
    }

    /// The one-host hand-over through a file: rank 0 makes the id for `device` and writes it
    /// to `path` (atomically: a temporary file renamed into place); every other rank waits
    /// up to `timeout` for the file to appear and reads it.
    ///
    /// Use a path that is new for each run (e.g. one naming the launcher's process id): a
    /// file left by an earlier run would give the other ranks an id whose rank 0 is gone
    /// (their communicator then times out).
    ///
    /// # Errors
    /// [`Error::Timeout`] when the file does not appear in time; [`Error::Collective`] for a
    /// file that does not hold an id or cannot be written; as [`Id::new`].
    pub fn share_through_file(
        path: impl AsRef<Path>,
        rank: usize,
        device: &Device,
        timeout: Duration,
    ) -> Result<Id> {
        let path = path.as_ref();
        let io = |what: &str, e: std::io::Error| {
            Error::Collective(format!("{what} {}: {e}", path.display()))
        };
        if rank == 0 {
            let id = Id::new(device)?;
            let mut tmp = path.as_os_str().to_owned();
            tmp.push(format!(".{}.tmp", std::process::id()));
            std::fs::write(&tmp, id.to_string()).map_err(|e| io("writing the id to", e))?;
            std::fs::rename(&tmp, path).map_err(|e| io("moving the id into", e))?;
            return Ok(id);
        }
        let start = Instant::now();
        loop {
            match std::fs::read_to_string(path) {
                Ok(text) => return text.parse(),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io("reading the id from", e)),
            }
            if start.elapsed() > timeout {
                return Err(Error::Timeout(format!(
                    "rank {rank} waited {timeout:?} for rank 0 to write the communicator id to {}",
                    path.display()
                )));
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl fmt::Display for Id {
    /// 256 lower-case hex digits.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in &self.bytes {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl fmt::Debug for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.is_simulated() { "sim" } else { "nccl" };
        write!(f, "Id({kind}, {:02x?}..)", &self.bytes[16..20])
    }
}

impl FromStr for Id {
    type Err = Error;

    /// Reads what [`Display`](fmt::Display) wrote (surrounding whitespace allowed).
    fn from_str(s: &str) -> Result<Id> {
        let s = s.trim();
        let bad = || {
            Error::Collective(format!(
                "`{}` is not a communicator id (expected {} hex digits)",
                s.chars().take(40).collect::<String>(),
                2 * ID_BYTES
            ))
        };
        if s.len() != 2 * ID_BYTES || !s.is_ascii() {
            return Err(bad());
        }
        let mut bytes = [0u8; ID_BYTES];
        for (i, b) in bytes.iter_mut().enumerate() {
            *b = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
        }
        Ok(Id { bytes })
    }
}
