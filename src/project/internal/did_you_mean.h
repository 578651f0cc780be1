// The project loaders' "did you mean" helpers are public (project/did_you_mean.h) so the semantic
// model loader gives the same hints; this private header stays for the loaders' includes.
#pragma once

#include "project/did_you_mean.h"
