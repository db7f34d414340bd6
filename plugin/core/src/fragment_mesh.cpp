// Mass properties of a closed triangle mesh by the divergence theorem. Each outward triangle (a, b, c)
// and a reference point o span a signed tet; summing the tets' exact integrals of 1, x and x xᵀ gives
// the solid's integrals, whatever the shape (the signs cancel outside). Taking o inside the bounding
// box keeps the products small, so the sums do not cancel catastrophically for far-off fragments.
#include "fragment_mesh.h"

#include "shatter/error.h"

#include <Eigen/Eigenvalues>

#include <cmath>

namespace shatter
{

MassProperties computeMassProperties(const TriMesh& surface, Real density, const std::string& source)
{
    if (!(density > 0) || !std::isfinite(density))
        throw Error(source, "density must be positive and finite, got " + std::to_string(density));
    if (surface.triangles.empty())
        throw Error(source, "cannot compute mass properties of an empty surface");
    const Vec3 origin = surface.bounds().center();

    Real volume = 0;
    Vec3 first = Vec3::Zero();                        // ∫ (x − o) dV
    Eigen::Matrix3d second = Eigen::Matrix3d::Zero(); // ∫ (x − o)(x − o)ᵀ dV
    for (const Triangle& t : surface.triangles)
    {
        const Vec3 a = surface.vertices[t[0]] - origin;
        const Vec3 b = surface.vertices[t[1]] - origin;
        const Vec3 c = surface.vertices[t[2]] - origin;
        const Real v = a.dot(b.cross(c)) / 6;
        const Vec3 sum = a + b + c;
        volume += v;
        first += v * sum / 4;
        // Tet (0, a, b, c): ∫ x xᵀ = v/20 · (a aᵀ + b bᵀ + c cᵀ + (a+b+c)(a+b+c)ᵀ).
        second +=
            (v / 20) * (a * a.transpose() + b * b.transpose() + c * c.transpose() + sum * sum.transpose());
    }
    if (!(volume > 0) || !std::isfinite(volume))
        throw Error(source, "the surface encloses no positive volume (" + std::to_string(volume) +
                                "): it is open, inside-out or degenerate");

    MassProperties m;
    m.volume = volume;
    m.mass = density * volume;
    const Vec3 com = first / volume;
    m.centerOfMass = origin + com;
    // Second moment about the centre of mass, then the inertia tensor I = tr(C)·1 − C.
    const Eigen::Matrix3d central = density * (second - volume * com * com.transpose());
    const Eigen::Matrix3d inertia = central.trace() * Eigen::Matrix3d::Identity() - central;
    const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eigen(inertia);
    m.principalInertia = eigen.eigenvalues().cwiseMax(Real(0));
    m.principalAxes = eigen.eigenvectors();
    if (m.principalAxes.determinant() < 0)
        m.principalAxes.col(2) = -m.principalAxes.col(2);
    return m;
}

} // namespace shatter
