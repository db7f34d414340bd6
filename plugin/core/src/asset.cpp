// Asset: the runtime part (the build lives in the cooking library, asset_build.cpp).
#include "asset.h"

namespace shatter
{

Real Asset::radius() const
{
    return Real(0.5) * surface.bounds().extent().norm();
}

} // namespace shatter
