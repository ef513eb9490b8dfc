// The device and context tilejit runs on (internal).
#pragma once

#include <string>

#include "tilejit/device.h"

namespace tilejit::rt {

/// Same facts as the public DeviceProperties; one struct so the two never drift apart.
using DeviceInfo = DeviceProperties;

/// Device 0 (CUDA_VISIBLE_DEVICES is left to the driver), queried once. Retains the device's
/// primary context on first use and makes it current on the calling thread on every call.
/// Throws CudaError when there is no device.
const DeviceInfo& current_device();

/// Makes the primary context of current_device() current on the calling thread; after the first
/// call this costs one cuCtxGetCurrent. Throws CudaError when there is no device.
void make_context_current();

/// The architecture to compile for: $TILEJIT_ARCH when set (must look like sm_90 or sm_90a, else
/// tilejit::Error), otherwise the device's "sm_<major><minor>", otherwise (no device) "sm_90".
/// Never throws for lack of a device.
std::string target_arch();

/// Whether `arch` has the form sm_NN[N] optionally followed by 'a' or 'f' (sm_80, sm_90a, sm_100f).
bool is_sm_arch(const std::string& arch);
/// The number of an sm architecture: "sm_90a" -> 90; 0 when `arch` is not of that form.
int sm_arch_number(const std::string& arch);

}  // namespace tilejit::rt
