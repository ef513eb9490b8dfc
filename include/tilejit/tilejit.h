// tilejit: the whole public API.
#pragma once

#include "tilejit/device.h"
#include "tilejit/dtype.h"
#include "tilejit/error.h"
#include "tilejit/kernel.h"
#include "tilejit/tl.h"
