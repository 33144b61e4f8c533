//! A kernel as the Rust side launches it: [`Kernel<A>`] (its [`Program`], its `extern "C"`
//! name, its argument list `A`), the argument lists ([`KernelArgs`]: tuples of [`Param`]s,
//! which push their values onto cudarc's launch builder and name the CUDA parameter types
//! they stand for, [`ParamType`]) and the pointer parameters' values ([`In`], [`Out`]). The
//! kernels themselves are the constants of [`crate::catalog`]; the one launch is
//! [`CudaDevice::launch`](crate::runtime::CudaDevice::launch). This module imports no
//! struct of the kernels and nothing that launches.

use crate::kernels::Program;
use cudarc::driver::{CudaSlice, LaunchArgs, PushKernelArg};
use std::marker::PhantomData;

/// A kernel parameter's type as its CUDA signature states it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// `const T*`: a device address the kernel reads.
    ConstPtr,
    /// `T*`: a device address the kernel may write.
    MutPtr,
    /// `unsigned int`, `uint32_t`.
    U32,
    /// `int`, `int32_t`.
    I32,
    /// `unsigned long long`, `uint64_t`.
    U64,
    /// `float`.
    F32,
    /// A `#[repr(C)]` struct passed by value, by its CUDA type name.
    Struct(&'static str),
}

impl std::fmt::Display for ParamType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParamType::ConstPtr => f.write_str("const T*"),
            ParamType::MutPtr => f.write_str("T*"),
            ParamType::U32 => f.write_str("unsigned int"),
            ParamType::I32 => f.write_str("int"),
            ParamType::U64 => f.write_str("unsigned long long"),
            ParamType::F32 => f.write_str("float"),
            ParamType::Struct(name) => f.write_str(name),
        }
    }
}

/// A declared kernel parameter: its CUDA type and the Rust value a launch passes for it.
pub trait Param: 'static {
    /// What a launch passes.
    type Value<'a>;
    /// The CUDA parameter it corresponds to.
    const TYPE: ParamType;
    /// Pushes `value` onto the launch (a pointer to it: cudarc copies it at the launch).
    fn push<'a>(value: &'a mut Self::Value<'_>, launch: &mut LaunchArgs<'a>);
}

/// Declares a `const T*` parameter; a launch passes an [`In`].
pub struct ConstPtr;
/// Declares a `T*` parameter; a launch passes an [`Out`].
pub struct MutPtr;

/// The value of a `const T*` parameter: a device address, or a buffer (whose reads cudarc
/// orders with the other streams).
pub enum In<'a> {
    Address(u64),
    Buffer(&'a CudaSlice<u8>),
}

/// The value of a `T*` parameter: a device address, or a buffer the kernel writes.
pub enum Out<'a> {
    Address(u64),
    Buffer(&'a mut CudaSlice<u8>),
}

impl From<u64> for In<'_> {
    fn from(address: u64) -> Self {
        In::Address(address)
    }
}

impl<'a> From<&'a CudaSlice<u8>> for In<'a> {
    fn from(buffer: &'a CudaSlice<u8>) -> Self {
        In::Buffer(buffer)
    }
}

impl From<u64> for Out<'_> {
    fn from(address: u64) -> Self {
        Out::Address(address)
    }
}

impl<'a> From<&'a mut CudaSlice<u8>> for Out<'a> {
    fn from(buffer: &'a mut CudaSlice<u8>) -> Self {
        Out::Buffer(buffer)
    }
}

impl Param for ConstPtr {
    type Value<'a> = In<'a>;
    const TYPE: ParamType = ParamType::ConstPtr;
    fn push<'a>(value: &'a mut In<'_>, launch: &mut LaunchArgs<'a>) {
        match value {
            In::Address(address) => launch.arg(&*address),
            In::Buffer(buffer) => launch.arg(&**buffer),
        };
    }
}

impl Param for MutPtr {
    type Value<'a> = Out<'a>;
    const TYPE: ParamType = ParamType::MutPtr;
    fn push<'a>(value: &'a mut Out<'_>, launch: &mut LaunchArgs<'a>) {
        match value {
            Out::Address(address) => launch.arg(&*address),
            Out::Buffer(buffer) => launch.arg(&mut **buffer),
        };
    }
}

/// `Param` for types passed by value (scalars here, the `#[repr(C)]` argument structs in the
/// catalog): `by_value! { Type => ParamType::..., }`.
macro_rules! by_value {
    ($($ty:ty => $param:expr),* $(,)?) => {$(
        impl Param for $ty {
            type Value<'a> = $ty;
            const TYPE: ParamType = $param;
            fn push<'a>(value: &'a mut $ty, launch: &mut LaunchArgs<'a>) {
                launch.arg(&*value);
            }
        }
    )*};
}

pub(crate) use by_value;

by_value! {
    u32 => ParamType::U32,
    i32 => ParamType::I32,
    u64 => ParamType::U64,
    f32 => ParamType::F32,
}

/// A kernel's argument list: a tuple of [`Param`]s in the CUDA signature's order.
pub trait KernelArgs: 'static {
    /// What a launch passes: the tuple of the parameters' values.
    type Values<'a>;
    /// The CUDA parameters, in order.
    fn params() -> Vec<ParamType>;
    /// Pushes every value onto the launch, in order.
    fn push_all<'a>(values: &'a mut Self::Values<'_>, launch: &mut LaunchArgs<'a>);
}

macro_rules! tuple_args {
    ($($param:ident $value:ident),+) => {
        impl<$($param: Param),+> KernelArgs for ($($param,)+) {
            type Values<'a> = ($($param::Value<'a>,)+);
            fn params() -> Vec<ParamType> {
                vec![$($param::TYPE),+]
            }
            fn push_all<'a>(values: &'a mut Self::Values<'_>, launch: &mut LaunchArgs<'a>) {
                let ($($value,)+) = values;
                $($param::push($value, launch);)+
            }
        }
    };
}

tuple_args!(A a);
tuple_args!(A a, B b);
tuple_args!(A a, B b, C c);
tuple_args!(A a, B b, C c, D d);
tuple_args!(A a, B b, C c, D d, E e);
tuple_args!(A a, B b, C c, D d, E e, F f);
tuple_args!(A a, B b, C c, D d, E e, F f, G g);
tuple_args!(A a, B b, C c, D d, E e, F f, G g, H h);
tuple_args!(A a, B b, C c, D d, E e, F f, G g, H h, I i);
tuple_args!(A a, B b, C c, D d, E e, F f, G g, H h, I i, J j);

/// A kernel: its program, its `extern "C"` name and its argument list `A`.
pub struct Kernel<A> {
    program: Program,
    name: &'static str,
    args: PhantomData<fn() -> A>,
}

impl<A> Clone for Kernel<A> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<A> Copy for Kernel<A> {}

impl<A> std::fmt::Debug for Kernel<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Kernel({:?}, {})", self.program, self.name)
    }
}

impl<A> Kernel<A> {
    pub const fn new(program: Program, name: &'static str) -> Self {
        Kernel { program, name, args: PhantomData }
    }

    /// The program that defines it.
    pub const fn program(&self) -> Program {
        self.program
    }

    /// Its `extern "C"` name.
    pub const fn name(&self) -> &'static str {
        self.name
    }

    /// Program and name, without the argument type (occupancy and attribute queries).
    pub const fn entry(&self) -> KernelEntry {
        KernelEntry { program: self.program, name: self.name }
    }
}

impl<A: KernelArgs> Kernel<A> {
    /// What the catalog declares of it.
    pub fn info(&self) -> KernelInfo {
        KernelInfo { program: self.program, name: self.name, params: A::params() }
    }
}

/// Declares kernel constants and a function listing them:
///
/// ```ignore
/// warpath_cuda::kernel_catalog! {
///     pub fn declared;
///     /// `(const float4* nodes, GpuHit* hits, int ray_count)`.
///     MY_KERNEL: (ConstPtr, MutPtr, i32) = MY_PROGRAM, "my_kernel";
/// }
/// ```
///
/// makes `pub const MY_KERNEL: Kernel<(ConstPtr, MutPtr, i32)>` (program `MY_PROGRAM`, entry point
/// `my_kernel`) and `pub fn declared() -> Vec<KernelInfo>`. The catalog declares this crate's
/// kernels with it; another crate declares those of its [`Program::External`] programs the same
/// way, and checks them against their sources with `catalog::signatures::mismatches`.
#[macro_export]
macro_rules! kernel_catalog {
    ($list_vis:vis fn $list:ident; $($(#[$doc:meta])* $name:ident: $args:ty = $program:expr, $entry:literal;)*) => {
        $($(#[$doc])* pub const $name: $crate::kernel::Kernel<$args> = $crate::kernel::Kernel::new($program, $entry);)*

        /// Every kernel constant of this list.
        $list_vis fn $list() -> Vec<$crate::kernel::KernelInfo> {
            vec![$($name.info()),*]
        }
    };
}

/// A kernel's program and name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KernelEntry {
    pub program: Program,
    pub name: &'static str,
}

/// A catalogued kernel: program, name, CUDA parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelInfo {
    pub program: Program,
    pub name: &'static str,
    pub params: Vec<ParamType>,
}
