//! Texture and surface objects for the `gpu` engine: a resource of the
//! texture model (`stdx::texture`) made into device memory and a
//! `CUtexObject` or `CUsurfObject` whose 64-bit handle is the parameter.
//!
//! Where a texture lives decides which fetches the hardware serves:
//! `tex1Dfetch` (the model's `Coords::Index`, an element index where
//! outside reads 0) reads linear memory, while `tex1D`/`tex2D`/`tex3D`
//! and the layered fetches read a CUDA array. The model does not say
//! which a launch will use, so [`storage`] decides from the sampler
//! state: a 1-D, non-layered texture with none of the options that only
//! float-coordinate fetches use (point sampling, unnormalized
//! coordinates, the default `clamp` addressing) is linear memory, for
//! `tex1Dfetch`; every other texture, and every surface, is an array.
//! The array's rank follows the extent: depth above 1 is 3-D, else height
//! above 1 is 2-D, else 1-D; `layers > 0` makes it layered (1-D or 2-D).
//!
//! Each object owns its memory through guards, so nothing leaks on an
//! error path; a surface's array is copied back after the launch as the
//! argument's final contents, which is what the emulator returns for it.

use crate::gpu::{check, DeviceBuffer};
use cudarc::driver::sys;
use std::ffi::c_void;
use stdx::texture::{Address, Format, Kind, Resource};

/// Where a texture or surface's elements live on the device.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Storage {
    /// A device buffer bound as a `CU_RESOURCE_TYPE_LINEAR` resource
    /// (what `tex1Dfetch` reads).
    Linear,
    /// A CUDA array (what float-coordinate fetches and surfaces use).
    Array,
}

/// Where `res` lives: see the module comment for the rule and its reason.
pub fn storage(res: &Resource, surface: bool) -> Storage {
    let one_d = res.extent[1] == 1 && res.extent[2] == 1 && res.layers == 0;
    let fetch_only = !res.linear && !res.normalized && res.address == Address::Clamp;
    if !surface && one_d && fetch_only {
        Storage::Linear
    } else {
        Storage::Array
    }
}

/// The driver's channel format of an element (the channel count is
/// separate, `format.channels`).
pub fn array_format(format: Format) -> sys::CUarray_format {
    use sys::CUarray_format as F;
    match (format.kind, format.bits) {
        (Kind::Float, _) => F::CU_AD_FORMAT_FLOAT,
        (Kind::Signed, 8) => F::CU_AD_FORMAT_SIGNED_INT8,
        (Kind::Signed, 16) => F::CU_AD_FORMAT_SIGNED_INT16,
        (Kind::Signed, _) => F::CU_AD_FORMAT_SIGNED_INT32,
        (Kind::Unsigned, 8) => F::CU_AD_FORMAT_UNSIGNED_INT8,
        (Kind::Unsigned, 16) => F::CU_AD_FORMAT_UNSIGNED_INT16,
        (Kind::Unsigned, _) => F::CU_AD_FORMAT_UNSIGNED_INT32,
    }
}

/// The CUDA array that holds `res`. The driver's convention: a zero
/// height makes a 1-D array, a zero depth a 2-D one; in a layered array
/// the depth counts the layers. A layered 3-D array does not exist.
pub fn array_descriptor(
    res: &Resource,
    surface: bool,
) -> Result<sys::CUDA_ARRAY3D_DESCRIPTOR, String> {
    let [w, h, d] = res.extent.map(|e| e as usize);
    let mut flags = if surface {
        sys::CUDA_ARRAY3D_SURFACE_LDST
    } else {
        0
    };
    let height = if h > 1 || d > 1 { h } else { 0 };
    let depth = if res.layers > 0 {
        if d > 1 {
            return Err(format!(
                "error: engine `gpu`: a {w}x{h}x{d} texture cannot be layered (CUDA layers 1-D and 2-D arrays only)\n"
            ));
        }
        flags |= sys::CUDA_ARRAY3D_LAYERED;
        res.layers as usize
    } else if d > 1 {
        d
    } else {
        0
    };
    Ok(sys::CUDA_ARRAY3D_DESCRIPTOR {
        Width: w,
        Height: height,
        Depth: depth,
        Format: array_format(res.format),
        NumChannels: u32::from(res.format.channels),
        Flags: flags,
    })
}

fn address_mode(address: Address) -> sys::CUaddress_mode {
    use sys::CUaddress_mode as A;
    match address {
        Address::Clamp => A::CU_TR_ADDRESS_MODE_CLAMP,
        Address::Border => A::CU_TR_ADDRESS_MODE_BORDER,
        Address::Wrap => A::CU_TR_ADDRESS_MODE_WRAP,
        Address::Mirror => A::CU_TR_ADDRESS_MODE_MIRROR,
    }
}

/// The sampler state of `res`: its addressing on every axis, a border of
/// zeros, and the filter and read mode the model fetches with. The model
/// filters only what it returns as floats, and returns integers raw
/// unless 8- or 16-bit ones are read as normalized floats; the driver's
/// default is to promote integers to floats, hence `READ_AS_INTEGER`.
pub fn texture_descriptor(res: &Resource) -> sys::CUDA_TEXTURE_DESC {
    let floats = res.returns_floats();
    let filter = if res.linear && floats {
        sys::CUfilter_mode::CU_TR_FILTER_MODE_LINEAR
    } else {
        sys::CUfilter_mode::CU_TR_FILTER_MODE_POINT
    };
    let mut flags = 0;
    if res.normalized {
        flags |= sys::CU_TRSF_NORMALIZED_COORDINATES;
    }
    if res.format.kind != Kind::Float && !floats {
        flags |= sys::CU_TRSF_READ_AS_INTEGER;
    }
    sys::CUDA_TEXTURE_DESC {
        addressMode: [address_mode(res.address); 3],
        filterMode: filter,
        flags,
        maxAnisotropy: 0,
        mipmapFilterMode: sys::CUfilter_mode::CU_TR_FILTER_MODE_POINT,
        mipmapLevelBias: 0.0,
        minMipmapLevelClamp: 0.0,
        maxMipmapLevelClamp: 0.0,
        borderColor: [0.0; 4],
        reserved: [0; 12],
    }
}

/// A resource descriptor with every byte of its union zeroed, then the
/// member `fill` writes.
fn resource_descriptor(
    kind: sys::CUresourcetype,
    fill: impl FnOnce(&mut sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1),
) -> sys::CUDA_RESOURCE_DESC {
    let mut res = sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1 {
        reserved: sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_5 { reserved: [0; 32] },
    };
    fill(&mut res);
    sys::CUDA_RESOURCE_DESC {
        resType: kind,
        res,
        flags: 0,
    }
}

/// The resource of an array.
pub fn array_resource(array: sys::CUarray) -> sys::CUDA_RESOURCE_DESC {
    resource_descriptor(sys::CUresourcetype::CU_RESOURCE_TYPE_ARRAY, |r| {
        r.array = sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_1 { hArray: array }
    })
}

/// The linear-memory resource of `res`'s elements at `ptr`.
pub fn linear_resource(res: &Resource, ptr: sys::CUdeviceptr) -> sys::CUDA_RESOURCE_DESC {
    resource_descriptor(sys::CUresourcetype::CU_RESOURCE_TYPE_LINEAR, |r| {
        r.linear = sys::CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_3 {
            devPtr: ptr,
            format: array_format(res.format),
            numChannels: u32::from(res.format.channels),
            sizeInBytes: res.data.len(),
        }
    })
}

/// Which way a copy between the host and an array goes.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Direction {
    ToArray,
    FromArray,
}

/// The `cuMemcpy3D` of all of `res`'s elements between `host` (packed
/// rows, slices, then layers, as the model holds them) and `array`. The
/// copy's depth is the array's slices times its layers: a layered array
/// keeps its layers along the depth, a 1-D one included.
pub fn copy_descriptor(
    res: &Resource,
    array: sys::CUarray,
    host: *mut c_void,
    direction: Direction,
) -> sys::CUDA_MEMCPY3D {
    let row = res.extent[0] as usize * res.format.size();
    let height = res.extent[1] as usize;
    let depth = res.extent[2] as usize * res.layers.max(1) as usize;
    let (host_type, array_type) = (
        sys::CUmemorytype::CU_MEMORYTYPE_HOST,
        sys::CUmemorytype::CU_MEMORYTYPE_ARRAY,
    );
    let to_array = direction == Direction::ToArray;
    let null = std::ptr::null_mut();
    sys::CUDA_MEMCPY3D {
        srcXInBytes: 0,
        srcY: 0,
        srcZ: 0,
        srcLOD: 0,
        srcMemoryType: if to_array { host_type } else { array_type },
        srcHost: if to_array { host } else { null },
        srcDevice: 0,
        srcArray: if to_array { null.cast() } else { array },
        reserved0: null,
        srcPitch: if to_array { row } else { 0 },
        srcHeight: if to_array { height } else { 0 },
        dstXInBytes: 0,
        dstY: 0,
        dstZ: 0,
        dstLOD: 0,
        dstMemoryType: if to_array { array_type } else { host_type },
        dstHost: if to_array { null } else { host },
        dstDevice: 0,
        dstArray: if to_array { array } else { null.cast() },
        reserved1: null,
        dstPitch: if to_array { 0 } else { row },
        dstHeight: if to_array { 0 } else { height },
        WidthInBytes: row,
        Height: height,
        Depth: depth,
    }
}

/// One CUDA array.
struct Array(sys::CUarray);

impl Drop for Array {
    fn drop(&mut self) {
        // SAFETY: created by `cuArray3DCreate_v2`, destroyed once, after
        // the object over it (see `Object`'s field order).
        unsafe {
            let _ = sys::cuArrayDestroy(self.0);
        }
    }
}

/// A texture or surface object's handle, destroyed with it.
enum Handle {
    Texture(sys::CUtexObject),
    Surface(sys::CUsurfObject),
}

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: each handle was created once by the matching call.
        unsafe {
            let _ = match *self {
                Handle::Texture(t) => sys::cuTexObjectDestroy(t),
                Handle::Surface(s) => sys::cuSurfObjectDestroy(s),
            };
        }
    }
}

enum Memory {
    Linear(DeviceBuffer),
    Array(Array),
}

/// A texture or surface argument on the device. The handle is declared
/// first so it is destroyed before the memory it names.
pub struct Object<'a> {
    handle: Handle,
    memory: Memory,
    res: &'a Resource,
}

impl<'a> Object<'a> {
    /// Allocates `res`'s memory, copies its elements in, and creates a
    /// surface object (`surface`) or a texture object over it.
    pub fn create(res: &'a Resource, surface: bool) -> Result<Object<'a>, String> {
        let memory = match storage(res, surface) {
            Storage::Linear => Memory::Linear(DeviceBuffer::alloc(res.data.len())?),
            Storage::Array => Memory::Array(create_array(res, surface)?),
        };
        let desc = match &memory {
            Memory::Linear(buf) => linear_resource(res, buf.0),
            Memory::Array(a) => array_resource(a.0),
        };
        let handle = if surface {
            let mut s: sys::CUsurfObject = 0;
            // SAFETY: a valid out-pointer and a descriptor of a live array.
            check(
                unsafe { sys::cuSurfObjectCreate(&mut s, &desc) },
                "creating a surface object (cuSurfObjectCreate)",
            )?;
            Handle::Surface(s)
        } else {
            let tex = texture_descriptor(res);
            let mut t: sys::CUtexObject = 0;
            // SAFETY: valid out-pointer and descriptors; no view (null).
            check(
                unsafe { sys::cuTexObjectCreate(&mut t, &desc, &tex, std::ptr::null()) },
                "creating a texture object (cuTexObjectCreate)",
            )?;
            Handle::Texture(t)
        };
        let object = Object {
            handle,
            memory,
            res,
        };
        object.upload()?;
        Ok(object)
    }

    /// The 64-bit handle the kernel parameter holds.
    pub fn handle(&self) -> u64 {
        match self.handle {
            Handle::Texture(t) => t,
            Handle::Surface(s) => s,
        }
    }

    /// Whether a launch can change the contents (a surface's).
    pub fn is_surface(&self) -> bool {
        matches!(self.handle, Handle::Surface(_))
    }

    /// Copies the resource's initial elements to the device.
    pub fn upload(&self) -> Result<(), String> {
        let data = &self.res.data;
        match &self.memory {
            // SAFETY: the buffer holds `data.len()` bytes.
            Memory::Linear(buf) => check(
                unsafe { sys::cuMemcpyHtoD_v2(buf.0, data.as_ptr().cast(), data.len()) },
                "copying a texture to the device (cuMemcpyHtoD)",
            ),
            Memory::Array(a) => {
                let copy = copy_descriptor(
                    self.res,
                    a.0,
                    data.as_ptr().cast_mut().cast(),
                    Direction::ToArray,
                );
                // SAFETY: the host side is `data`, exactly the extent's
                // elements (`Resource::check`), read only; the array has
                // that extent.
                check(
                    unsafe { sys::cuMemcpy3D_v2(&copy) },
                    "copying a texture or surface to its array (cuMemcpy3D)",
                )
            }
        }
    }

    /// The elements as the device holds them now.
    pub fn download(&self) -> Result<Vec<u8>, String> {
        let mut out = vec![0u8; self.res.data.len()];
        match &self.memory {
            // SAFETY: the buffer holds `out.len()` bytes.
            Memory::Linear(buf) => check(
                unsafe { sys::cuMemcpyDtoH_v2(out.as_mut_ptr().cast(), buf.0, out.len()) },
                "copying a texture back (cuMemcpyDtoH)",
            )?,
            Memory::Array(a) => {
                let copy =
                    copy_descriptor(self.res, a.0, out.as_mut_ptr().cast(), Direction::FromArray);
                // SAFETY: `out` holds exactly the array's elements.
                check(
                    unsafe { sys::cuMemcpy3D_v2(&copy) },
                    "copying a surface back from its array (cuMemcpy3D)",
                )?
            }
        }
        Ok(out)
    }
}

fn create_array(res: &Resource, surface: bool) -> Result<Array, String> {
    let desc = array_descriptor(res, surface)?;
    let mut array: sys::CUarray = std::ptr::null_mut();
    // SAFETY: a valid out-pointer and descriptor.
    check(
        unsafe { sys::cuArray3DCreate_v2(&mut array, &desc) },
        &format!(
            "creating a {}x{}x{} array of {} layers (cuArray3DCreate)",
            desc.Width, desc.Height, desc.Depth, res.layers
        ),
    )?;
    Ok(Array(array))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resource(kind: Kind, bits: u8, channels: u8, extent: [u32; 3], layers: u32) -> Resource {
        let format = Format {
            kind,
            bits,
            channels,
        };
        let count = extent.iter().product::<u32>() * layers.max(1);
        Resource {
            format,
            extent,
            layers,
            data: vec![0; count as usize * format.size()],
            address: Address::Clamp,
            linear: false,
            normalized: false,
            read_normalized: false,
        }
    }

    #[test]
    fn only_plain_1d_textures_are_linear_memory() {
        let mut r = resource(Kind::Signed, 32, 1, [8, 1, 1], 0);
        assert_eq!(storage(&r, false), Storage::Linear);
        assert_eq!(storage(&r, true), Storage::Array);
        for change in [
            |r: &mut Resource| r.linear = true,
            |r: &mut Resource| r.normalized = true,
            |r: &mut Resource| r.address = Address::Border,
            |r: &mut Resource| r.layers = 2,
            |r: &mut Resource| r.extent[1] = 2,
        ] {
            let mut changed = r.clone();
            change(&mut changed);
            assert_eq!(storage(&changed, false), Storage::Array, "{changed:?}");
        }
        r.read_normalized = true;
        assert_eq!(storage(&r, false), Storage::Linear);
    }

    #[test]
    fn channel_formats() {
        use sys::CUarray_format as F;
        let f = |kind, bits| {
            array_format(Format {
                kind,
                bits,
                channels: 4,
            })
        };
        assert_eq!(f(Kind::Float, 32), F::CU_AD_FORMAT_FLOAT);
        assert_eq!(f(Kind::Signed, 8), F::CU_AD_FORMAT_SIGNED_INT8);
        assert_eq!(f(Kind::Signed, 16), F::CU_AD_FORMAT_SIGNED_INT16);
        assert_eq!(f(Kind::Signed, 32), F::CU_AD_FORMAT_SIGNED_INT32);
        assert_eq!(f(Kind::Unsigned, 8), F::CU_AD_FORMAT_UNSIGNED_INT8);
        assert_eq!(f(Kind::Unsigned, 16), F::CU_AD_FORMAT_UNSIGNED_INT16);
        assert_eq!(f(Kind::Unsigned, 32), F::CU_AD_FORMAT_UNSIGNED_INT32);
    }

    #[test]
    fn array_shapes_follow_the_drivers_convention() {
        let shape = |extent, layers, surface| {
            let d =
                array_descriptor(&resource(Kind::Unsigned, 8, 4, extent, layers), surface).unwrap();
            assert_eq!(d.NumChannels, 4);
            (d.Width, d.Height, d.Depth, d.Flags)
        };
        let (layered, ldst) = (sys::CUDA_ARRAY3D_LAYERED, sys::CUDA_ARRAY3D_SURFACE_LDST);
        assert_eq!(shape([8, 1, 1], 0, false), (8, 0, 0, 0));
        assert_eq!(shape([8, 3, 1], 0, false), (8, 3, 0, 0));
        assert_eq!(shape([8, 3, 2], 0, false), (8, 3, 2, 0));
        assert_eq!(shape([8, 1, 1], 5, false), (8, 0, 5, layered));
        assert_eq!(shape([8, 3, 1], 5, true), (8, 3, 5, layered | ldst));
        assert_eq!(shape([8, 3, 1], 0, true), (8, 3, 0, ldst));
        let r = resource(Kind::Float, 32, 1, [2, 2, 2], 3);
        assert!(array_descriptor(&r, false).is_err());
    }

    #[test]
    fn sampler_state_follows_the_model() {
        use sys::{CUaddress_mode as A, CUfilter_mode as M};
        let mut r = resource(Kind::Unsigned, 8, 4, [4, 4, 1], 0);
        let d = texture_descriptor(&r);
        assert_eq!(d.addressMode, [A::CU_TR_ADDRESS_MODE_CLAMP; 3]);
        assert_eq!(d.filterMode, M::CU_TR_FILTER_MODE_POINT);
        assert_eq!(d.flags, sys::CU_TRSF_READ_AS_INTEGER);
        assert_eq!(d.borderColor, [0.0; 4]);
        r.read_normalized = true;
        r.linear = true;
        r.normalized = true;
        r.address = Address::Mirror;
        let d = texture_descriptor(&r);
        assert_eq!(d.addressMode, [A::CU_TR_ADDRESS_MODE_MIRROR; 3]);
        assert_eq!(d.filterMode, M::CU_TR_FILTER_MODE_LINEAR);
        assert_eq!(d.flags, sys::CU_TRSF_NORMALIZED_COORDINATES);
        // 32-bit integers never read as normalized floats, so never filter.
        let mut r = resource(Kind::Signed, 32, 1, [4, 1, 1], 0);
        r.read_normalized = true;
        r.linear = true;
        let d = texture_descriptor(&r);
        assert_eq!(d.filterMode, M::CU_TR_FILTER_MODE_POINT);
        assert_eq!(d.flags, sys::CU_TRSF_READ_AS_INTEGER);
        let mut r = resource(Kind::Float, 32, 2, [4, 1, 1], 0);
        r.address = Address::Wrap;
        let d = texture_descriptor(&r);
        assert_eq!(d.flags, 0);
        assert_eq!(d.addressMode, [A::CU_TR_ADDRESS_MODE_WRAP; 3]);
    }

    #[test]
    fn resource_descriptors() {
        let r = resource(Kind::Signed, 16, 2, [6, 1, 1], 0);
        let d = linear_resource(&r, 0x1000);
        assert_eq!(d.resType, sys::CUresourcetype::CU_RESOURCE_TYPE_LINEAR);
        // SAFETY: `linear` is the member written.
        let l = unsafe { d.res.linear };
        assert_eq!(l.devPtr, 0x1000);
        assert_eq!(l.format, sys::CUarray_format::CU_AD_FORMAT_SIGNED_INT16);
        assert_eq!((l.numChannels, l.sizeInBytes), (2, 24));
        let fake = 0x40usize as sys::CUarray;
        let d = array_resource(fake);
        assert_eq!(d.resType, sys::CUresourcetype::CU_RESOURCE_TYPE_ARRAY);
        // SAFETY: `array` is the member written; the rest of the union
        // was zeroed first.
        unsafe {
            assert_eq!(d.res.array.hArray, fake);
            assert!(d.res.reserved.reserved[2..].iter().all(|&w| w == 0));
        }
    }

    #[test]
    fn copies_cover_rows_slices_and_layers() {
        let r = resource(Kind::Float, 32, 4, [5, 3, 1], 2);
        let fake = 0x40usize as sys::CUarray;
        let mut host = vec![0u8; r.data.len()];
        let c = copy_descriptor(&r, fake, host.as_mut_ptr().cast(), Direction::ToArray);
        assert_eq!((c.WidthInBytes, c.Height, c.Depth), (80, 3, 2));
        assert_eq!((c.srcPitch, c.srcHeight), (80, 3));
        assert_eq!(c.srcMemoryType, sys::CUmemorytype::CU_MEMORYTYPE_HOST);
        assert_eq!(c.dstMemoryType, sys::CUmemorytype::CU_MEMORYTYPE_ARRAY);
        assert_eq!(c.dstArray, fake);
        let c = copy_descriptor(&r, fake, host.as_mut_ptr().cast(), Direction::FromArray);
        assert_eq!((c.dstPitch, c.dstHeight), (80, 3));
        assert_eq!(c.srcArray, fake);
        assert_eq!(c.dstHost, host.as_mut_ptr().cast());
        let r = resource(Kind::Unsigned, 8, 1, [7, 1, 1], 4);
        let c = copy_descriptor(&r, fake, host.as_mut_ptr().cast(), Direction::ToArray);
        assert_eq!((c.WidthInBytes, c.Height, c.Depth), (7, 1, 4));
    }
}
