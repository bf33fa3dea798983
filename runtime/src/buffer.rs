//! `DeviceBuffer<T>` and its views, and the traits a launch takes them by.

use std::marker::PhantomData;
use std::ops::RangeBounds;

use cudarc::driver::{CudaSlice, CudaView, CudaViewMut};
use cuprum_std::sim::{SimBuffer, SimSlice, SimSliceMut};

use crate::device::Device;
use crate::element::Element;

/// An array of `T` in device memory, owned. Freed when dropped.
pub struct DeviceBuffer<T: Element> {
    storage: Storage<T>,
    device: Device,
}

enum Storage<T: Element> {
    Gpu(CudaSlice<T>),
    Sim(SimBuffer<T>),
}

/// A read-only view of part of a [`DeviceBuffer`]; launches take it wherever they take a
/// `&DeviceBuffer`.
pub struct DeviceView<'a, T: Element> {
    repr: Repr<'a, T>,
    device: &'a Device,
}

/// A writable view of part of a [`DeviceBuffer`]; launches take it wherever they take a
/// `&mut DeviceBuffer`.
pub struct DeviceViewMut<'a, T: Element> {
    repr: ReprMut<'a, T>,
    device: &'a Device,
}

/// Read-only device memory as a launch or copy sees it.
#[doc(hidden)]
pub enum Repr<'a, T> {
    Gpu(CudaView<'a, T>),
    Sim(SimSlice<T>, PhantomData<&'a T>),
}

/// Writable device memory as a launch or copy sees it.
#[doc(hidden)]
pub enum ReprMut<'a, T> {
    Gpu(CudaViewMut<'a, T>),
    Sim(SimSliceMut<T>, PhantomData<&'a mut T>),
}

/// A read-only view with its device.
#[doc(hidden)]
pub struct RawView<'a, T> {
    pub repr: Repr<'a, T>,
    device: &'a Device,
}

impl<T> RawView<'_, T> {
    /// The device the memory is on.
    pub fn device(&self) -> &Device {
        self.device
    }
}

/// A writable view with its device.
#[doc(hidden)]
pub struct RawViewMut<'a, T> {
    pub repr: ReprMut<'a, T>,
    device: &'a Device,
}

impl<T> RawViewMut<'_, T> {
    /// The device the memory is on.
    pub fn device(&self) -> &Device {
        self.device
    }
}

/// Device memory a kernel can read: `&DeviceBuffer<T>`, `&DeviceView<T>` or
/// `&DeviceViewMut<T>` for a `&[T]` kernel parameter.
#[diagnostic::on_unimplemented(
    message = "a `&[{T}]` kernel parameter takes a `&DeviceBuffer<{T}>` or a view of one, not `{Self}`",
    label = "expected device memory of `{T}`"
)]
pub trait DeviceSlice<T: Element> {
    /// Number of elements.
    fn len(&self) -> usize;
    /// True when there are no elements.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    #[doc(hidden)]
    fn __view(&self) -> RawView<'_, T>;
}

/// Device memory a kernel can write: `&mut DeviceBuffer<T>` or `&mut DeviceViewMut<T>` for a
/// `&mut [T]` kernel parameter.
#[diagnostic::on_unimplemented(
    message = "a `&mut [{T}]` kernel parameter takes a `&mut DeviceBuffer<{T}>` or a mutable view of one, not `{Self}`",
    label = "expected writable device memory of `{T}`"
)]
pub trait DeviceSliceMut<T: Element>: DeviceSlice<T> {
    #[doc(hidden)]
    fn __view_mut(&mut self) -> RawViewMut<'_, T>;
}

impl<T: Element> DeviceBuffer<T> {
    pub(crate) fn gpu(slice: CudaSlice<T>, device: Device) -> Self {
        DeviceBuffer {
            storage: Storage::Gpu(slice),
            device,
        }
    }

    pub(crate) fn sim(buf: SimBuffer<T>, device: Device) -> Self {
        DeviceBuffer {
            storage: Storage::Sim(buf),
            device,
        }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        match &self.storage {
            Storage::Gpu(s) => s.len(),
            Storage::Sim(s) => s.len(),
        }
    }

    /// True when the buffer holds no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The device the buffer lives on.
    pub fn device(&self) -> &Device {
        &self.device
    }

    /// A read-only view of `range`.
    ///
    /// # Panics
    /// When `range` is out of bounds, like slicing a `Vec`.
    pub fn slice(&self, range: impl RangeBounds<usize>) -> DeviceView<'_, T> {
        let (a, b) = bounds(&range, self.len());
        let repr = match &self.storage {
            Storage::Gpu(s) => Repr::Gpu(s.slice(a..b)),
            Storage::Sim(s) => Repr::Sim(s.view(a, b - a), PhantomData),
        };
        DeviceView {
            repr,
            device: &self.device,
        }
    }

    /// A writable view of `range`.
    ///
    /// # Panics
    /// When `range` is out of bounds, like slicing a `Vec`.
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> DeviceViewMut<'_, T> {
        let (a, b) = bounds(&range, self.len());
        let repr = match &mut self.storage {
            Storage::Gpu(s) => ReprMut::Gpu(s.slice_mut(a..b)),
            Storage::Sim(s) => ReprMut::Sim(s.view_mut(a, b - a), PhantomData),
        };
        DeviceViewMut {
            repr,
            device: &self.device,
        }
    }

    /// The cudarc slice, for interop (`None` on the simulator).
    pub fn cuda_slice(&self) -> Option<&CudaSlice<T>> {
        match &self.storage {
            Storage::Gpu(s) => Some(s),
            Storage::Sim(_) => None,
        }
    }

    /// The cudarc slice, writable, for interop (`None` on the simulator).
    pub fn cuda_slice_mut(&mut self) -> Option<&mut CudaSlice<T>> {
        match &mut self.storage {
            Storage::Gpu(s) => Some(s),
            Storage::Sim(_) => None,
        }
    }
}

fn bounds(range: &impl RangeBounds<usize>, len: usize) -> (usize, usize) {
    use std::ops::Bound;
    let a = match range.start_bound() {
        Bound::Included(&a) => a,
        Bound::Excluded(&a) => a.checked_add(1).expect("range start overflows"),
        Bound::Unbounded => 0,
    };
    let b = match range.end_bound() {
        Bound::Included(&b) => b.checked_add(1).expect("range end overflows"),
        Bound::Excluded(&b) => b,
        Bound::Unbounded => len,
    };
    assert!(a <= b, "device buffer range starts at {a} but ends at {b}");
    assert!(
        b <= len,
        "device buffer range end {b} is out of range for a buffer of length {len}"
    );
    (a, b)
}

impl<T: Element> std::fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "DeviceBuffer<{}>[{}] on {:?}",
            T::NAME,
            self.len(),
            self.device
        )
    }
}

impl<T: Element> DeviceSlice<T> for DeviceBuffer<T> {
    fn len(&self) -> usize {
        DeviceBuffer::len(self)
    }
    fn __view(&self) -> RawView<'_, T> {
        let repr = match &self.storage {
            Storage::Gpu(s) => Repr::Gpu(s.as_view()),
            Storage::Sim(s) => Repr::Sim(s.view(0, s.len()), PhantomData),
        };
        RawView {
            repr,
            device: &self.device,
        }
    }
}

impl<T: Element> DeviceSliceMut<T> for DeviceBuffer<T> {
    fn __view_mut(&mut self) -> RawViewMut<'_, T> {
        let repr = match &mut self.storage {
            Storage::Gpu(s) => ReprMut::Gpu(s.as_view_mut()),
            Storage::Sim(s) => ReprMut::Sim(s.view_mut(0, s.len()), PhantomData),
        };
        RawViewMut {
            repr,
            device: &self.device,
        }
    }
}

impl<T: Element> DeviceSlice<T> for DeviceView<'_, T> {
    fn len(&self) -> usize {
        match &self.repr {
            Repr::Gpu(v) => v.len(),
            Repr::Sim(v, _) => v.len(),
        }
    }
    fn __view(&self) -> RawView<'_, T> {
        let repr = match &self.repr {
            Repr::Gpu(v) => Repr::Gpu(v.slice(..)),
            Repr::Sim(v, _) => Repr::Sim(*v, PhantomData),
        };
        RawView {
            repr,
            device: self.device,
        }
    }
}

impl<T: Element> DeviceSlice<T> for DeviceViewMut<'_, T> {
    fn len(&self) -> usize {
        match &self.repr {
            ReprMut::Gpu(v) => v.len(),
            ReprMut::Sim(v, _) => v.len(),
        }
    }
    fn __view(&self) -> RawView<'_, T> {
        let repr = match &self.repr {
            ReprMut::Gpu(v) => Repr::Gpu(v.as_view()),
            ReprMut::Sim(v, _) => Repr::Sim(v.as_slice(), PhantomData),
        };
        RawView {
            repr,
            device: self.device,
        }
    }
}

impl<T: Element> DeviceSliceMut<T> for DeviceViewMut<'_, T> {
    fn __view_mut(&mut self) -> RawViewMut<'_, T> {
        let repr = match &mut self.repr {
            ReprMut::Gpu(v) => ReprMut::Gpu(v.slice_mut(..)),
            ReprMut::Sim(v, _) => ReprMut::Sim(*v, PhantomData),
        };
        RawViewMut {
            repr,
            device: self.device,
        }
    }
}
