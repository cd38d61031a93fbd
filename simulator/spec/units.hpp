#pragma once
// Binary units, named once: memory is reported in GiB (what nvidia-smi and PyTorch print), bandwidths
// and checkpoint sizes in decimal GB as vendors quote them.

namespace preflight {

constexpr double kMiB = 1024.0 * 1024.0;
constexpr double kGiB = 1024.0 * kMiB;

}  // namespace preflight
