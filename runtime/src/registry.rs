//! The kernel registry: each kernel's static description (`KernelInfo`, its runtime check
//! sites) and the table that maps the kernel id a checked kernel's failure records back to it.
//! Above module loading (`module.rs`), below launches and occupancy queries.

use std::sync::Mutex;

use cuprum_abi::CheckKind;

use crate::device::DeviceCore;
use crate::error::{Error, Result};
use crate::module::{FunctionCache, Image, Loaded};

/// A runtime check in a kernel's source.
#[derive(Clone, Copy, Debug)]
pub struct Site {
    /// What it checks.
    pub kind: CheckKind,
    /// Source file.
    pub file: &'static str,
    /// Line, 1-based.
    pub line: u32,
    /// Column, 1-based.
    pub column: u32,
    /// For [`CheckKind::Panic`]: the message, in Rust's wording, from the values the failing
    /// thread recorded.
    pub message: Option<fn(&[u64]) -> String>,
}

/// A kernel as the macro describes it: `k::INFO` for a `#[kernel] fn k`, which
/// [`occupancy`](crate::occupancy) queries take. The fields are for Cuprum's own use.
#[derive(Debug)]
pub struct KernelInfo {
    /// The kernel's loaded modules, one per CUDA context, shared by its launches and its
    /// occupancy queries: a `static` of the expansion, the kernel's identity (see
    /// `KernelInfo::load`).
    pub cache: fn() -> &'static FunctionCache,
    /// The PTX entry name.
    pub name: &'static str,
    /// The PTX module.
    pub ptx: &'static str,
    /// Whether the kernel takes the panic-record parameter.
    pub checked: bool,
    /// `max_threads` from `#[kernel(max_threads = N)]`, 0 when unset.
    pub max_threads: u32,
    /// The block shape from `#[kernel(block = (X, Y, Z))]`, `[0, 0, 0]` when unset: the
    /// compiler relied on it, so a launch with another shape is refused.
    pub block: [u32; 3],
    /// The runtime checks, indexed by site number.
    pub sites: &'static [Site],
    /// Whether threads wait for each other (the simulator then runs each block's threads as
    /// coroutines).
    pub cooperative: bool,
    /// The bytes of the kernel's locals (device functions' included): the simulator sizes
    /// its threads' stacks from it.
    pub frame_bytes: usize,
    /// `#[kernel(cooperative)]`: launched cooperatively, with the grid barrier's word as the
    /// last hidden parameter, and refused when the grid cannot be resident at once.
    pub grid_sync: bool,
    /// Static shared arrays, for the simulator.
    pub shared: &'static [cuprum_std::sim::SharedDecl],
    /// Cubins assembled at build time (`CUPRUM_SASS`), by compute capability (major × 10 +
    /// minor): a device of exactly that capability loads the cubin instead of compiling the
    /// PTX.
    pub sass: &'static [(u32, &'static [u8])],
    /// A kernel whose fast copy the launch selects: the PTX module whose entry (same name,
    /// same parameters) is that copy alone, which the launch runs when its test holds.
    pub fast_ptx: Option<&'static str>,
    /// Cubins of the fast module, as [`KernelInfo::sass`].
    pub fast_sass: &'static [(u32, &'static [u8])],
}

/// Every kernel launched on a GPU, by kernel id - 1 (0 is the id of a module nobody
/// registered).
///
/// The id is what a checked kernel's panic path records (see `cuprum_abi::KERNEL_ID_SYMBOL`).
/// It is handed out per [`FunctionCache`], the one `static` of each kernel's expansion: `INFO`
/// is a `const`, whose address is not unique, and two kernels may share a name (in different
/// modules) and even their PTX.
static REGISTRY: Mutex<Vec<&'static KernelInfo>> = Mutex::new(Vec::new());

fn register(info: &'static KernelInfo) -> Result<u32> {
    let mut r = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    r.push(info);
    u32::try_from(r.len())
        .map_err(|_| Error::LaunchConfig("more than 2^32 - 1 kernels were registered".into()))
}

/// The kernel whose module holds `id`.
pub(crate) fn lookup_kernel(id: u32) -> Option<&'static KernelInfo> {
    let r = REGISTRY.lock().unwrap_or_else(|e| e.into_inner());
    r.get((id as usize).checked_sub(1)?).copied()
}

impl KernelInfo {
    /// The bytes of the kernel's static shared arrays, as the simulator lays them out.
    pub(crate) fn static_shared(&self) -> u32 {
        let bytes: usize = self.shared.iter().map(|d| d.bytes).sum();
        u32::try_from(bytes).unwrap_or(u32::MAX)
    }

    /// The kernel's function in `dev`'s context (a GPU), loaded on first use; registers the
    /// kernel (its id is written into its module) on its first load anywhere.
    pub(crate) fn load(&'static self, dev: &DeviceCore) -> Result<Loaded> {
        let image = Image {
            name: self.name,
            ptx: self.ptx,
            sass: self.sass,
            has_id: self.checked,
            fast: self.fast_ptx.map(|ptx| (ptx, self.fast_sass)),
        };
        (self.cache)().get(dev, &image, || register(self))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn twin(sites: &'static [Site]) -> KernelInfo {
        KernelInfo {
            name: "twin",
            cache: || {
                static CACHE: FunctionCache = FunctionCache::new();
                &CACHE
            },
            ptx: "",
            checked: true,
            max_threads: 0,
            block: [0; 3],
            sites,
            cooperative: false,
            shared: &[],
            sass: &[],
            fast_ptx: None,
            fast_sass: &[],
            frame_bytes: 0,
            grid_sync: false,
        }
    }

    /// Two kernels with one name (and one PTX) get two ids, each of which finds its own
    /// kernel: what a failed check records names exactly one kernel.
    #[test]
    fn kernels_with_one_name_get_distinct_ids() {
        static A: [Site; 1] = [Site {
            kind: CheckKind::Index,
            file: "a.rs",
            line: 1,
            column: 1,
            message: None,
        }];
        static B: [Site; 1] = [Site {
            kind: CheckKind::RemZero,
            file: "b.rs",
            line: 2,
            column: 2,
            message: None,
        }];
        let (a, b): (&'static KernelInfo, &'static KernelInfo) =
            (Box::leak(Box::new(twin(&A))), Box::leak(Box::new(twin(&B))));
        let (ia, ib) = (register(a).unwrap(), register(b).unwrap());
        assert_ne!(ia, ib);
        assert!(std::ptr::eq(lookup_kernel(ia).unwrap(), a));
        assert!(std::ptr::eq(lookup_kernel(ib).unwrap(), b));
        assert!(
            lookup_kernel(0).is_none(),
            "0 is the id of an unregistered module"
        );
    }
}
