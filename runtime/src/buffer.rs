//! `DeviceBuffer<T>` and its views, and the traits a launch takes them by.

use std::ops::RangeBounds;

use cudarc::driver::{CudaSlice, CudaView, CudaViewMut};

use crate::device::Device;
use crate::element::Element;

/// An array of `T` in device memory, owned. Freed when dropped.
pub struct DeviceBuffer<T: Element> {
    slice: CudaSlice<T>,
    device: Device,
}

/// A read-only view of part of a [`DeviceBuffer`]; launches take it wherever they take a
/// `&DeviceBuffer`.
pub struct DeviceView<'a, T: Element> {
    view: CudaView<'a, T>,
    device: &'a Device,
}

/// A writable view of part of a [`DeviceBuffer`]; launches take it wherever they take a
/// `&mut DeviceBuffer`.
pub struct DeviceViewMut<'a, T: Element> {
    view: CudaViewMut<'a, T>,
    device: &'a Device,
}

/// A read-only device slice as a launch or copy sees it.
#[doc(hidden)]
pub struct RawView<'a, T> {
    pub cuda: CudaView<'a, T>,
    device: &'a Device,
}

impl<T> RawView<'_, T> {
    /// The device the memory is on.
    pub fn device(&self) -> &Device {
        self.device
    }
}

/// A writable device slice as a launch or copy sees it.
#[doc(hidden)]
pub struct RawViewMut<'a, T> {
    pub cuda: CudaViewMut<'a, T>,
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
    pub(crate) fn from_parts(slice: CudaSlice<T>, device: Device) -> Self {
        DeviceBuffer { slice, device }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.slice.len()
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
        DeviceView {
            view: self.slice.slice(a..b),
            device: &self.device,
        }
    }

    /// A writable view of `range`.
    ///
    /// # Panics
    /// When `range` is out of bounds, like slicing a `Vec`.
    pub fn slice_mut(&mut self, range: impl RangeBounds<usize>) -> DeviceViewMut<'_, T> {
        let (a, b) = bounds(&range, self.len());
        DeviceViewMut {
            view: self.slice.slice_mut(a..b),
            device: &self.device,
        }
    }

    /// The cudarc slice, for interop.
    pub fn cuda_slice(&self) -> &CudaSlice<T> {
        &self.slice
    }

    /// The cudarc slice, writable, for interop.
    pub fn cuda_slice_mut(&mut self) -> &mut CudaSlice<T> {
        &mut self.slice
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
        self.slice.len()
    }
    fn __view(&self) -> RawView<'_, T> {
        RawView {
            cuda: self.slice.as_view(),
            device: &self.device,
        }
    }
}

impl<T: Element> DeviceSliceMut<T> for DeviceBuffer<T> {
    fn __view_mut(&mut self) -> RawViewMut<'_, T> {
        RawViewMut {
            cuda: self.slice.as_view_mut(),
            device: &self.device,
        }
    }
}

impl<T: Element> DeviceSlice<T> for DeviceView<'_, T> {
    fn len(&self) -> usize {
        self.view.len()
    }
    fn __view(&self) -> RawView<'_, T> {
        RawView {
            cuda: self.view.slice(..),
            device: self.device,
        }
    }
}

impl<T: Element> DeviceSlice<T> for DeviceViewMut<'_, T> {
    fn len(&self) -> usize {
        self.view.len()
    }
    fn __view(&self) -> RawView<'_, T> {
        RawView {
            cuda: self.view.as_view(),
            device: self.device,
        }
    }
}

impl<T: Element> DeviceSliceMut<T> for DeviceViewMut<'_, T> {
    fn __view_mut(&mut self) -> RawViewMut<'_, T> {
        RawViewMut {
            cuda: self.view.slice_mut(..),
            device: self.device,
        }
    }
}
