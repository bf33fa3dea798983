//! Simulated device memory: buffers and shared arrays whose elements are only ever touched
//! through relaxed atomics of their own width.

use std::alloc::{self, Layout};
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};

use cuprum_abi::CheckKind;

use super::{thread::Thread, Loc, Stop};

/// A scalar the simulator can store: loads and stores are atomic accesses of its width.
pub trait SimScalar: SimValue {
    /// The value's bits, zero-extended.
    fn to_u64(self) -> u64;
    /// The value from the low bits of `bits`.
    fn from_u64(bits: u64) -> Self;
    /// Atomically replaces the value at `p` with `f(old)`; returns `old`.
    ///
    /// # Safety
    /// As [`SimScalar::load`], for reads and writes.
    unsafe fn update(p: *mut u8, f: impl Fn(Self) -> Self) -> Self;
    /// Reads the value at `p`.
    ///
    /// # Safety
    /// `p` is valid for reads of `size_of::<Self>()` bytes, aligned, and only accessed
    /// atomically for the duration.
    unsafe fn load(p: *const u8) -> Self;
    /// Writes `v` at `p`.
    ///
    /// # Safety
    /// As [`SimScalar::load`], for writes.
    unsafe fn store(p: *mut u8, v: Self);
}

macro_rules! sim_scalar {
    ($($t:ty => $atomic:ty, $bits:ty, |$v:ident| $to:expr, |$b:ident| $from:expr;)*) => {$(
        impl SimScalar for $t {
            fn to_u64(self) -> u64 {
                let $v = self;
                ($to) as u64
            }
            fn from_u64(bits: u64) -> $t {
                let $b = bits as $bits;
                $from
            }
            unsafe fn update(p: *mut u8, f: impl Fn($t) -> $t) -> $t {
                // SAFETY: the caller guarantees a valid, aligned, atomically accessed location.
                let a = unsafe { <$atomic>::from_ptr(p as *mut $bits) };
                let mut cur = a.load(Relaxed);
                loop {
                    let $b = cur;
                    let old: $t = $from;
                    let $v = f(old);
                    match a.compare_exchange_weak(cur, $to, Relaxed, Relaxed) {
                        Ok(_) => return old,
                        Err(seen) => cur = seen,
                    }
                }
            }
            unsafe fn load(p: *const u8) -> $t {
                // SAFETY: the caller guarantees a valid, aligned, atomically accessed location.
                let $b: $bits = unsafe { <$atomic>::from_ptr(p as *mut $bits) }.load(Relaxed);
                $from
            }
            unsafe fn store(p: *mut u8, $v: $t) {
                // SAFETY: as above.
                unsafe { <$atomic>::from_ptr(p as *mut $bits) }.store($to, Relaxed)
            }
        }
    )*};
}

sim_scalar! {
    bool => AtomicU8, u8, |v| v as u8, |b| b != 0;
    i8 => AtomicU8, u8, |v| v as u8, |b| b as i8;
    u8 => AtomicU8, u8, |v| v, |b| b;
    i16 => AtomicU16, u16, |v| v as u16, |b| b as i16;
    u16 => AtomicU16, u16, |v| v, |b| b;
    i32 => AtomicU32, u32, |v| v as u32, |b| b as i32;
    u32 => AtomicU32, u32, |v| v, |b| b;
    f32 => AtomicU32, u32, |v| v.to_bits(), |b| f32::from_bits(b);
    i64 => AtomicU64, u64, |v| v as u64, |b| b as i64;
    u64 => AtomicU64, u64, |v| v, |b| b;
    isize => AtomicU64, u64, |v| v as u64, |b| b as isize;
    usize => AtomicU64, u64, |v| v as u64, |b| b as usize;
    f64 => AtomicU64, u64, |v| v.to_bits(), |b| f64::from_bits(b);
}

/// A value the simulator keeps in device memory: a scalar, an array of such values, or a
/// `#[derive(DeviceCopy)]` struct or field-less enum (the derive implements it). It is loaded
/// and stored one scalar at a time, each scalar with a relaxed atomic access of its own width,
/// as a GPU reads and writes a struct: not as one indivisible access.
///
/// Loading is fallible for types with bit patterns that are no value (enums, and arrays and
/// structs holding one): memory may hold such bits (an integer written through
/// `DeviceBuffer::as_repr_mut`, or uninitialised shared memory), and the simulator, which
/// runs kernels on the user's own types, never makes a value of them from such bits.
///
/// # Safety
/// `load_from` and `store_to` access exactly the bytes of `size_of::<Self>()` from `p` that
/// hold the type's scalars, each through [`SimScalar`]'s atomic accesses at its own offset,
/// and no padding byte (a `DeviceCopy` type has none). `load_from` returns `Ok` only with a
/// valid value of the type, and when [`CHECKED`](SimValue::CHECKED) is `false` it always
/// returns `Ok` (every bit pattern reads as a value).
pub unsafe trait SimValue: Copy + Send + Sync + 'static {
    /// Whether some bit patterns of the type are no value of it, so that a read checks its
    /// bits (a type holding an enum). `false` for scalars (`bool` reads any non-zero byte as
    /// `true`), and for arrays and structs of such types.
    const CHECKED: bool = false;
    /// Reads the value at `p`, or the bits found there when they are no value of the type.
    ///
    /// # Safety
    /// `p` is valid for reads of `size_of::<Self>()` bytes, aligned for `Self`, and its bytes
    /// are only accessed atomically for the duration.
    unsafe fn load_from(p: *const u8) -> Result<Self, NotAValue>;
    /// Writes `v` at `p`.
    ///
    /// # Safety
    /// As [`SimValue::load_from`], for writes.
    unsafe fn store_to(p: *mut u8, v: Self);
    /// Copies the bits at `src` to `dst`, whether or not they are a value, with the accesses
    /// of `load_from` and `store_to` (a copy between device buffers moves bits). Types whose
    /// [`CHECKED`](SimValue::CHECKED) is `true` override it, part by part.
    ///
    /// # Safety
    /// As [`SimValue::load_from`] for `src` and [`SimValue::store_to`] for `dst`.
    #[inline]
    unsafe fn copy_bits(src: *const u8, dst: *mut u8) {
        // SAFETY: the caller's contract; `load_from` is `Ok` for every bit pattern of a type
        // that does not override this.
        if let Ok(v) = unsafe { Self::load_from(src) } {
            unsafe { Self::store_to(dst, v) }
        }
    }
}

/// Bits in memory that are no value of the type they were read as: an enum's `repr` integer
/// that is no variant's discriminant.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotAValue {
    /// The enum's name.
    pub ty: &'static str,
    /// The integer found, as the enum's `repr` type reads it (sign-extended for signed ones).
    pub value: i128,
    /// The `repr` type's name (`u8`).
    pub repr: &'static str,
}

impl std::fmt::Display for NotAValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the bits {}_{} are no variant of `{}`",
            self.value, self.repr, self.ty
        )
    }
}

macro_rules! sim_value_scalar {
    ($($t:ty),*) => {$(
        // SAFETY: one atomic access of the scalar's own width.
        unsafe impl SimValue for $t {
            #[inline]
            unsafe fn load_from(p: *const u8) -> Result<$t, NotAValue> {
                // SAFETY: the caller's contract is `SimScalar::load`'s.
                Ok(unsafe { <$t as SimScalar>::load(p) })
            }
            #[inline]
            unsafe fn store_to(p: *mut u8, v: $t) {
                // SAFETY: as above.
                unsafe { <$t as SimScalar>::store(p, v) }
            }
        }
    )*};
}
sim_value_scalar!(bool, i8, u8, i16, u16, i32, u32, f32, i64, u64, isize, usize, f64);

// SAFETY: each element at its own offset (arrays have no padding), through `T`'s accesses;
// `Ok` only when every element is.
unsafe impl<T: SimValue, const N: usize> SimValue for [T; N] {
    const CHECKED: bool = T::CHECKED;
    #[inline]
    unsafe fn load_from(p: *const u8) -> Result<[T; N], NotAValue> {
        let mut out = [const { std::mem::MaybeUninit::<T>::uninit() }; N];
        for (i, slot) in out.iter_mut().enumerate() {
            // SAFETY: element `i` lies within the array's bytes; the caller's contract covers
            // them.
            slot.write(unsafe { T::load_from(p.add(i * std::mem::size_of::<T>())) }?);
        }
        // SAFETY: every element was written above.
        Ok(unsafe { std::mem::transmute_copy::<_, [T; N]>(&out) })
    }
    #[inline]
    unsafe fn store_to(p: *mut u8, v: [T; N]) {
        for (i, x) in v.into_iter().enumerate() {
            // SAFETY: as above.
            unsafe { T::store_to(p.add(i * std::mem::size_of::<T>()), x) }
        }
    }
    #[inline]
    unsafe fn copy_bits(src: *const u8, dst: *mut u8) {
        for i in 0..N {
            let at = i * std::mem::size_of::<T>();
            // SAFETY: element `i` of both arrays; the caller's contract covers them.
            unsafe { T::copy_bits(src.add(at), dst.add(at)) }
        }
    }
}

/// A bounds-checked place in a simulator view: an element of a slice or shared array, or a
/// field or array element inside one (`ps[i].pos[k]`). Only the views make one (and
/// [`SimPlace::field`], whose caller promises the field's type and offset), and their memory
/// outlives the launch, so reading and writing through it is sound.
pub struct SimPlace<T>(*mut u8, PhantomData<T>);

impl<T> Clone for SimPlace<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SimPlace<T> {}

impl<T: SimValue> SimPlace<T> {
    /// The value, or a stop with a report when the memory holds bits that are no value of
    /// `T` (an enum's).
    #[inline]
    pub fn load(self, t: &Thread, loc: &'static Loc) -> Result<T, Stop> {
        // SAFETY: a checked place of a live view, only ever accessed atomically.
        unsafe { T::load_from(self.0) }.map_err(|e| not_a_value(t, e, loc))
    }

    /// Replaces the value.
    #[inline]
    pub fn store(self, v: T) {
        // SAFETY: as above.
        unsafe { T::store_to(self.0, v) }
    }

    /// The field of type `F` at byte `offset` of the value.
    ///
    /// # Safety
    /// `T` is a struct with a field of type `F` at `offset` (`core::mem::offset_of!`).
    #[inline]
    pub unsafe fn field<F: SimValue>(self, offset: usize) -> SimPlace<F> {
        // SAFETY: the field lies within the value (the caller's contract).
        SimPlace(unsafe { self.0.add(offset) }, PhantomData)
    }
}

impl<T: SimScalar> SimPlace<T> {
    /// The place as an element for atomics.
    #[inline]
    pub fn atomic(self) -> SimElement<T> {
        SimElement(self.0, PhantomData)
    }
}

impl<E: SimValue, const N: usize> SimPlace<[E; N]> {
    /// Element `index` of the array, or a stop with an out-of-bounds report.
    #[inline]
    pub fn index(self, t: &Thread, index: usize, loc: &'static Loc) -> Result<SimPlace<E>, Stop> {
        if index >= N {
            return Err(out_of_bounds(t, index, N, loc));
        }
        // SAFETY: in bounds of the array.
        Ok(SimPlace(
            unsafe { self.0.add(index * std::mem::size_of::<E>()) },
            PhantomData,
        ))
    }
}

/// An owned allocation of simulated device memory holding `len` elements of `T`.
pub struct SimBuffer<T: SimValue> {
    ptr: NonNull<u8>,
    len: usize,
    _t: PhantomData<T>,
}

// SAFETY: the memory is only accessed through atomics (or exclusively through `&mut self`).
unsafe impl<T: SimValue> Send for SimBuffer<T> {}
// SAFETY: as above.
unsafe impl<T: SimValue> Sync for SimBuffer<T> {}

/// Simulated device memory could not be allocated: the size overflows `isize`, or the host
/// has no memory for it (where a GPU would report that it is out of memory).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OutOfMemory;

impl<T: SimValue> SimBuffer<T> {
    /// The layout of `len` elements, `None` when its size overflows.
    fn layout(len: usize) -> Option<Layout> {
        let bytes = len.checked_mul(std::mem::size_of::<T>())?;
        Layout::from_size_align(bytes.max(1), 16).ok()
    }

    /// `len` zeroed elements, or `Err` when they cannot be allocated.
    pub fn zeroed(len: usize) -> Result<SimBuffer<T>, OutOfMemory> {
        let layout = Self::layout(len).ok_or(OutOfMemory)?;
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { alloc::alloc_zeroed(layout) };
        let ptr = NonNull::new(raw).ok_or(OutOfMemory)?;
        Ok(SimBuffer {
            ptr,
            len,
            _t: PhantomData,
        })
    }

    /// A copy of `data`, or `Err` when it cannot be allocated.
    pub fn from_slice(data: &[T]) -> Result<SimBuffer<T>, OutOfMemory> {
        let b = SimBuffer::zeroed(data.len())?;
        // SAFETY: the view does not outlive this function.
        unsafe { b.view(0, data.len()) }.copy_from(data);
        Ok(b)
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// A read-only view of `start..start + len`.
    ///
    /// # Panics
    /// When the range is not within the buffer.
    ///
    /// # Safety
    /// The view carries no lifetime: the caller must not use it (or copies of it) after the
    /// buffer is dropped, nor while something holds the buffer exclusively.
    pub unsafe fn view(&self, start: usize, len: usize) -> SimSlice<T> {
        assert!(
            start.checked_add(len).is_some_and(|end| end <= self.len),
            "simulator view out of range"
        );
        // SAFETY: in bounds of the allocation.
        SimSlice {
            ptr: unsafe { self.ptr.as_ptr().add(start * std::mem::size_of::<T>()) },
            len,
            _t: PhantomData,
        }
    }

    /// A writable view of `start..start + len`.
    ///
    /// # Panics
    /// As [`SimBuffer::view`].
    ///
    /// # Safety
    /// As [`SimBuffer::view`]; the caller must also not use the view while another view of
    /// the same elements is used as if it were exclusive.
    pub unsafe fn view_mut(&mut self, start: usize, len: usize) -> SimSliceMut<T> {
        // SAFETY: the caller keeps the contract of `view`.
        SimSliceMut(unsafe { self.view(start, len) })
    }
}

impl<T: SimValue> Drop for SimBuffer<T> {
    fn drop(&mut self) {
        let layout = Self::layout(self.len).expect("the layout was valid when allocated");
        // SAFETY: allocated in `zeroed` with the same layout.
        unsafe { alloc::dealloc(self.ptr.as_ptr(), layout) }
    }
}

/// A kernel's view of a `&[T]` parameter in the simulator: an address and a length.
///
/// It carries no lifetime: the runtime keeps the memory borrowed until the launch returns,
/// and nothing else can construct one.
pub struct SimSlice<T> {
    ptr: *mut u8,
    len: usize,
    _t: PhantomData<T>,
}

impl<T> Clone for SimSlice<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SimSlice<T> {}
// SAFETY: elements are only accessed atomically.
unsafe impl<T> Send for SimSlice<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for SimSlice<T> {}

/// A kernel's view of a `&mut [T]` parameter in the simulator.
pub struct SimSliceMut<T>(SimSlice<T>);

impl<T> Clone for SimSliceMut<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SimSliceMut<T> {}

impl<T> SimSlice<T> {
    pub(crate) fn from_raw(ptr: *mut u8, len: usize) -> SimSlice<T> {
        SimSlice {
            ptr,
            len,
            _t: PhantomData,
        }
    }
}

impl<T> SimSlice<T> {
    /// `len` elements of `U` from byte `offset` of this view's memory, at whatever alignment
    /// that gives (the runtime's tests make misaligned views with it, as foreign memory on a
    /// GPU can be).
    ///
    /// # Safety
    /// The bytes `offset..offset + len * size_of::<U>()` lie within this view's memory, and
    /// hold values of `U` whenever the result is read.
    #[doc(hidden)]
    pub unsafe fn reinterpret<U>(self, offset: usize, len: usize) -> SimSlice<U> {
        // SAFETY: within the view's memory (the caller's contract).
        SimSlice::from_raw(unsafe { self.ptr.add(offset) }, len)
    }
}

impl<T> SimSlice<T> {
    /// An empty view at a 16-byte-aligned address outside any allocation (as
    /// `NonNull::dangling`): what an empty part of a split view (`as_vectors`) passes when
    /// no address inside the memory has the part's alignment. Nothing is ever read through
    /// it (every access is checked against its length, 0).
    #[doc(hidden)]
    pub fn dangling() -> SimSlice<T> {
        SimSlice::from_raw(std::ptr::without_provenance_mut(16), 0)
    }
}

impl<T> SimSliceMut<T> {
    /// An empty writable view at a 16-byte-aligned address (see [`SimSlice::dangling`]).
    #[doc(hidden)]
    pub fn dangling() -> SimSliceMut<T> {
        SimSliceMut(SimSlice::dangling())
    }

    /// `len` elements of `U` from byte `offset` of this view's memory (see
    /// [`SimSlice::reinterpret`]).
    ///
    /// # Safety
    /// As [`SimSlice::reinterpret`]; also, what is written through the result must be read
    /// back as `T` only through the fallible [`SimValue::load_from`].
    #[doc(hidden)]
    pub unsafe fn reinterpret<U>(self, offset: usize, len: usize) -> SimSliceMut<U> {
        // SAFETY: the caller's contract.
        SimSliceMut(unsafe { self.0.reinterpret(offset, len) })
    }

    pub(crate) fn from_raw(ptr: *mut u8, len: usize) -> SimSliceMut<T> {
        SimSliceMut(SimSlice::from_raw(ptr, len))
    }
}

/// The stop of a thread that read bits which are no value of their type.
fn not_a_value(t: &Thread, e: NotAValue, loc: &'static Loc) -> Stop {
    t.fail(
        format!("a kernel read `{}` from memory, but {e}", e.ty),
        Some(*loc),
    )
}

fn out_of_bounds(t: &Thread, index: usize, len: usize, loc: &'static Loc) -> Stop {
    t.fail(
        CheckKind::Index
            .message(index as u64, len as u64)
            .to_string(),
        Some(*loc),
    )
}

impl<T: SimValue> SimSlice<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `self[index]`, or a stop with an out-of-bounds report.
    #[inline]
    pub fn load(&self, t: &Thread, index: usize, loc: &'static Loc) -> Result<T, Stop> {
        if index >= self.len {
            return Err(out_of_bounds(t, index, self.len, loc));
        }
        // SAFETY: in bounds; the launch keeps the memory alive; accessed atomically.
        unsafe { T::load_from(self.ptr.add(index * std::mem::size_of::<T>())) }
            .map_err(|e| not_a_value(t, e, loc))
    }

    /// The place of element `index`, or a stop with an out-of-bounds report.
    #[inline]
    pub fn at(&self, t: &Thread, index: usize, loc: &'static Loc) -> Result<SimPlace<T>, Stop> {
        if index >= self.len {
            return Err(out_of_bounds(t, index, self.len, loc));
        }
        Ok(SimPlace(self.element(index), PhantomData))
    }

    /// The address of the first element (for the launch's alignment check).
    pub fn addr(&self) -> usize {
        self.ptr as usize
    }

    /// The address of element `index` (unchecked: callers check first).
    pub(crate) fn element(&self, index: usize) -> *mut u8 {
        // SAFETY: callers pass an index below `len`.
        unsafe { self.ptr.add(index * std::mem::size_of::<T>()) }
    }

    /// Copies `src` into the view (host side, lengths equal).
    pub fn copy_from(&self, src: &[T]) {
        assert_eq!(src.len(), self.len, "copy length mismatch");
        for (i, &v) in src.iter().enumerate() {
            // SAFETY: in bounds; atomic store.
            unsafe { T::store_to(self.element(i), v) }
        }
    }

    /// Copies `src`'s bits into the view (host side, lengths equal), whether or not they are
    /// values of `T`: a copy between device buffers moves bits, and reads check them.
    pub fn copy_bits_from(&self, src: &SimSlice<T>) {
        assert_eq!(src.len, self.len, "copy length mismatch");
        for i in 0..self.len {
            // SAFETY: in bounds of both views; atomic accesses.
            unsafe { T::copy_bits(src.element(i), self.element(i)) }
        }
    }

    /// A view of host memory that the runtime owns, to read values out of it with the
    /// checks of [`SimValue::load_from`] (bytes copied from a GPU).
    ///
    /// # Safety
    /// `ptr` is valid for reads of `len` elements of `T`, aligned for `T`, and only accessed
    /// through the view while it is used.
    #[doc(hidden)]
    pub unsafe fn from_host(ptr: *mut u8, len: usize) -> SimSlice<T> {
        SimSlice::from_raw(ptr, len)
    }

    /// The elements, copied out (host side), or the index of the first element whose bits
    /// are no value of `T` (an enum's) and what they are.
    pub fn to_vec(&self) -> Result<Vec<T>, (usize, NotAValue)> {
        // SAFETY: in bounds; atomic loads.
        (0..self.len)
            .map(|i| unsafe { T::load_from(self.element(i)) }.map_err(|e| (i, e)))
            .collect()
    }
}

impl<T: SimValue> SimSliceMut<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.0.len
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.0.len == 0
    }

    /// `self[index]`.
    #[inline]
    pub fn load(&self, t: &Thread, index: usize, loc: &'static Loc) -> Result<T, Stop> {
        self.0.load(t, index, loc)
    }

    /// `self[index] = v`, or a stop with an out-of-bounds report (nothing is written).
    #[inline]
    pub fn store(&self, t: &Thread, index: usize, v: T, loc: &'static Loc) -> Result<(), Stop> {
        if index >= self.0.len {
            return Err(out_of_bounds(t, index, self.0.len, loc));
        }
        // SAFETY: in bounds; the launch keeps the memory alive; accessed atomically.
        unsafe { T::store_to(self.0.element(index), v) };
        Ok(())
    }

    /// The place of element `index`, or a stop with an out-of-bounds report.
    #[inline]
    pub fn at(&self, t: &Thread, index: usize, loc: &'static Loc) -> Result<SimPlace<T>, Stop> {
        self.0.at(t, index, loc)
    }

    /// The read-only view of the same memory.
    pub fn as_slice(&self) -> SimSlice<T> {
        self.0
    }
}

/// A shared-memory array of one block, flat: 2-D arrays are indexed `r * cols + c` after
/// both indices are checked by the caller.
pub struct SharedArray<T>(pub(crate) SimSliceMut<T>);

impl<T> Clone for SharedArray<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for SharedArray<T> {}

impl<T: SimScalar> SimSliceMut<T> {
    /// The address of a checked element, for atomics.
    pub fn element_ptr(
        &self,
        t: &Thread,
        index: usize,
        loc: &'static Loc,
    ) -> Result<SimElement<T>, Stop> {
        if index >= self.0.len {
            return Err(out_of_bounds(t, index, self.0.len, loc));
        }
        Ok(SimElement(self.0.element(index), PhantomData))
    }
}

impl<T: SimValue> SharedArray<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True when empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `s[index]`.
    #[inline]
    pub fn load(&self, t: &Thread, index: usize, loc: &'static Loc) -> Result<T, Stop> {
        self.0.load(t, index, loc)
    }

    /// `s[index] = v`.
    #[inline]
    pub fn store(&self, t: &Thread, index: usize, v: T, loc: &'static Loc) -> Result<(), Stop> {
        self.0.store(t, index, v, loc)
    }

    /// The place of element `index`.
    #[inline]
    pub fn at(&self, t: &Thread, index: usize, loc: &'static Loc) -> Result<SimPlace<T>, Stop> {
        self.0.at(t, index, loc)
    }
}

impl<T: SimScalar> SharedArray<T> {
    /// The address of a checked element, for atomics.
    pub fn element_ptr(
        &self,
        t: &Thread,
        index: usize,
        loc: &'static Loc,
    ) -> Result<SimElement<T>, Stop> {
        self.0.element_ptr(t, index, loc)
    }
}

/// A bounds-checked element of a simulator view, for atomics. Only the views make one, and
/// their memory outlives the launch, so reaching it through the address is sound.
pub struct SimElement<T>(*mut u8, PhantomData<T>);

impl<T: SimScalar> SimElement<T> {
    /// Atomically replaces the element with `f(old)`; returns `old`.
    #[inline]
    pub fn update(&self, f: impl Fn(T) -> T) -> T {
        // SAFETY: a checked element of a live view, only ever accessed atomically.
        unsafe { T::update(self.0, f) }
    }
}

/// Integer types with Rust's wrapping division semantics.
pub trait SimInt: Copy {
    /// Zero.
    const ZERO: Self;
    /// `a.wrapping_div(b)` for `b != 0`.
    fn wdiv(self, b: Self) -> Self;
    /// `a.wrapping_rem(b)` for `b != 0`.
    fn wrem(self, b: Self) -> Self;
}

macro_rules! sim_int {
    ($($t:ty),*) => {$(
        impl SimInt for $t {
            const ZERO: $t = 0;
            fn wdiv(self, b: $t) -> $t { self.wrapping_div(b) }
            fn wrem(self, b: $t) -> $t { self.wrapping_rem(b) }
        }
    )*};
}
sim_int!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

/// `a / b` on integers: a zero divisor stops the thread; `MIN / -1` wraps.
#[inline]
pub fn div<T: SimInt + PartialEq>(t: &Thread, a: T, b: T, loc: &'static Loc) -> Result<T, Stop> {
    if b == T::ZERO {
        return Err(t.fail(CheckKind::DivZero.message(0, 0).to_string(), Some(*loc)));
    }
    Ok(a.wdiv(b))
}

/// `a % b` on integers: a zero divisor stops the thread; `MIN % -1` is 0.
#[inline]
pub fn rem<T: SimInt + PartialEq>(t: &Thread, a: T, b: T, loc: &'static Loc) -> Result<T, Stop> {
    if b == T::ZERO {
        return Err(t.fail(CheckKind::RemZero.message(0, 0).to_string(), Some(*loc)));
    }
    Ok(a.wrem(b))
}
