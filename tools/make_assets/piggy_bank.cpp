// The piggy bank of TVCG Fig. 1 / Table 1: a hollow ceramic piggy bank built as an implicit solid
// (smooth union of ellipsoids and rounded cylinders, smooth subtraction for the coin slot and the
// nostrils, an ellipsoidal cavity) and polygonised by surface nets (surface_nets.h).
//
// Frame: metres, +Y up, snout towards +x, standing on its four feet on y = 0, centred in z.
// Size: 19 cm long, 14 cm tall at the ears, 12 cm wide. The tail is a small ring (the one handle of
// the surface). The cavity is a second closed shell facing
// into the void; the wall is at least 11 mm thick (below the coin slot) so that the grid, whose cells
// are about 5 mm, never sees the outer and inner surfaces in one cell: that is what keeps surface
// nets manifold. The coin slot is a groove, not a hole: a piercing slot would make the surface one
// genus-1 shell with a 4 mm throat, too thin for this resolution, and the fracture demo does not need it.
#include "procedural.h"
#include "surface_nets.h"

#include <algorithm>
#include <array>
#include <numbers>

namespace shatter::assets
{

namespace
{

Real degrees(Real angle)
{
    return angle * std::numbers::pi_v<Real> / 180;
}

/// The piggy bank's implicit function; rotations are precomputed once.
class PiggyShape
{
public:
    PiggyShape()
    {
        for (int side = 0; side < 2; ++side)
        {
            const Real s = side == 0 ? Real(-1) : Real(1);
            // Ears lean outwards and forwards, like a pig's.
            m_earToLocal[side] = (Eigen::AngleAxisd(s * degrees(18), Vec3::UnitX()) *
                                  Eigen::AngleAxisd(degrees(-18), Vec3::UnitZ()))
                                     .toRotationMatrix()
                                     .transpose();
            m_earCentre[side] = Vec3(0.040, 0.121, s * 0.029);
        }
    }

    Real operator()(const Vec3& p) const
    {
        Real d = sdEllipsoid(p - Vec3(0, 0.070, 0), Vec3(0.078, 0.062, 0.060));

        // Snout: a short cylinder along x with a flat front and two nostril dimples.
        const Vec3 s = p - Vec3(0.082, 0.066, 0);
        d = smoothUnion(d, sdRoundedCylinder(Vec3(s.y(), s.x(), s.z()), 0.025, 0.013, 0.007), 0.012);
        for (Real side : {Real(-1), Real(1)})
            d = smoothSubtract(d, (p - Vec3(0.0985, 0.066, side * 0.0095)).norm() - 0.0058, 0.003);

        // Four stubby legs with flat soles on y = 0.
        for (Real x : {Real(-0.040), Real(0.040)})
            for (Real z : {Real(-0.030), Real(0.030)})
                d = smoothUnion(d, sdRoundedCylinder(p - Vec3(x, 0.022, z), 0.0165, 0.022, 0.004), 0.012);

        // Ears: flattened ellipsoids narrowing towards the tip.
        for (int side = 0; side < 2; ++side)
        {
            const Vec3 q = m_earToLocal[side] * (p - m_earCentre[side]);
            const Real taper = Real(1) - Real(0.45) * std::clamp(q.y() / Real(0.026), Real(-1), Real(1));
            d = smoothUnion(d, sdEllipsoid(q, Vec3(0.0072, 0.026, 0.020 * taper)), 0.008);
        }

        // Curly tail: a small ring on the rump, its axis across the body.
        const Vec3 t = p - Vec3(-0.085, 0.088, 0);
        d = smoothUnion(d, sdTorus(Vec3(t.x(), t.z(), t.y()), 0.0085, 0.0048), 0.006);

        // Coin slot across the back: a groove 10 mm wide, 44 mm long and up to 8 mm deep with round
        // ends; the blend rounds its lips, which the 5 mm grid could not follow as sharp creases.
        d = smoothSubtract(d, sdRoundedBox(p - Vec3(-0.008, 0.133, 0), Vec3(0.005, 0.009, 0.022), 0.0048),
                           0.005);

        // The cavity, kept clear of the legs, snout and slot.
        return std::max(d, -sdEllipsoid(p - Vec3(0, 0.068, 0), Vec3(0.060, 0.045, 0.045)));
    }

private:
    std::array<Mat3, 2> m_earToLocal;
    std::array<Vec3, 2> m_earCentre;
};

} // namespace

TriMesh makePiggyBank(const Target& target)
{
    const PiggyShape shape;
    Aabb bounds;
    bounds.grow(Vec3(-0.101, -0.0013, -0.072));
    bounds.grow(Vec3(0.103, 0.162, 0.072));
    ImplicitMeshSettings options;
    options.targetTriangles = target.triangles;
    TriMesh mesh = meshImplicit(shape, bounds, options, "piggy_bank");
    // The soles are flat at y = 0 up to the Newton projection's last micrometres; make it exact.
    const Real lowest = mesh.bounds().min.y();
    for (Vec3& v : mesh.vertices)
        v.y() -= lowest;
    return mesh;
}

} // namespace shatter::assets
