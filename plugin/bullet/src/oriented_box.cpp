#include "oriented_box.h"

namespace shatter
{

bool separated(const OrientedBox& a, const OrientedBox& b)
{
    // Without the slack, two edges that are nearly parallel give a cross product of rounding noise,
    // which could separate overlapping boxes.
    constexpr btScalar slack = btScalar(1e-5);
    const btMatrix3x3 r = a.axes.transposeTimes(b.axes); // r[i][j] = a's axis i · b's axis j
    const btVector3 d = (b.centre - a.centre) * a.axes;  // b's centre in a's frame (vᵀA = Aᵀv)
    btMatrix3x3 magnitude;
    for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
            magnitude[i][j] = btFabs(r[i][j]) + slack;
    for (int i = 0; i < 3; ++i) // a's face normals
        if (btFabs(d[i]) > a.half[i] + b.half.dot(magnitude[i]))
            return true;
    for (int j = 0; j < 3; ++j) // b's face normals
    {
        const btScalar along = d[0] * r[0][j] + d[1] * r[1][j] + d[2] * r[2][j];
        const btScalar reach =
            a.half[0] * magnitude[0][j] + a.half[1] * magnitude[1][j] + a.half[2] * magnitude[2][j];
        if (btFabs(along) > reach + b.half[j])
            return true;
    }
    for (int i = 0; i < 3; ++i) // a's axis i × b's axis j
    {
        const int i1 = (i + 1) % 3, i2 = (i + 2) % 3;
        for (int j = 0; j < 3; ++j)
        {
            const int j1 = (j + 1) % 3, j2 = (j + 2) % 3;
            const btScalar reachA = a.half[i1] * magnitude[i2][j] + a.half[i2] * magnitude[i1][j];
            const btScalar reachB = b.half[j1] * magnitude[i][j2] + b.half[j2] * magnitude[i][j1];
            if (btFabs(d[i2] * r[i1][j] - d[i1] * r[i2][j]) > reachA + reachB)
                return true;
        }
    }
    return false;
}

} // namespace shatter
