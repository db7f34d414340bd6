// FractureSystem::debugDraw: sphere-tree levels, contacts and piece outlines through Bullet's
// btIDebugDraw, so a game debugs Shatter in its own renderer.
#include "bullet_convert.h"
#include "object_state.h"
#include "sphere_forest.h"

#include "shatter/error.h"
#include "shatter/fracture_system.h"

#include <btBulletDynamicsCommon.h>

#include <cmath>
#include <unordered_map>

namespace shatter::fracture
{

namespace
{

// A colour per piece, stable across frames: hues spread by the golden ratio.
btVector3 pieceColor(FragmentId f)
{
    const double h = std::fmod(0.13 + 0.618033988749895 * double(f), 1.0) * 6;
    const double x = 1 - std::abs(std::fmod(h, 2.0) - 1);
    const int sector = int(h);
    const double rgb[6][3] = {{1, x, 0}, {x, 1, 0}, {0, 1, x}, {0, x, 1}, {x, 0, 1}, {1, 0, x}};
    return btVector3(btScalar(0.25 + 0.75 * rgb[sector][0]), btScalar(0.25 + 0.75 * rgb[sector][1]),
                     btScalar(0.25 + 0.75 * rgb[sector][2]));
}

// The surface edges of `mesh` where its faces meet at more than 30°, or a crack face meets the original
// surface, in material coordinates; each edge once.
void drawOutline(const FragmentMesh& mesh, const btTransform& toWorld, const btVector3& color,
                 btIDebugDraw& drawer)
{
    const TriMesh& surface = mesh.surface;
    const Real cosLimit = std::cos(30 * M_PI / 180);
    std::unordered_map<std::uint64_t, Index> firstFace; // edge (low, high) → the first face seen with it
    firstFace.reserve(surface.triangles.size() * 3 / 2);
    for (Index t = 0; t < surface.triangles.size(); ++t)
        for (int e = 0; e < 3; ++e)
        {
            Index a = surface.triangles[t][e], b = surface.triangles[t][(e + 1) % 3];
            if (a > b)
                std::swap(a, b);
            const std::uint64_t key = (std::uint64_t(a) << 32) | b;
            const auto [it, first] = firstFace.try_emplace(key, t);
            if (first)
                continue;
            const Index other = it->second;
            if (surface.normal(t).dot(surface.normal(other)) < cosLimit ||
                mesh.isCrack(t) != mesh.isCrack(other))
                drawer.drawLine(toWorld * toBullet(surface.vertices[a]),
                                toWorld * toBullet(surface.vertices[b]), color);
        }
}

} // namespace

void FractureSystem::debugDraw(const DebugDrawSettings& what, btIDebugDraw* drawer) const
{
    if (!(what.normalLength > 0) || !std::isfinite(what.normalLength))
        throw Error("FractureSystem::debugDraw", "normalLength must be finite and > 0");
    btIDebugDraw* out = drawer ? drawer : world().getDebugDrawer();
    if (!out)
        return;
    for (ObjectId object : objects())
    {
        const ObjectState& state = this->state(object);
        for (btRigidBody* body : bodies(object))
        {
            ObjectId owner = 0;
            FragmentId f = 0;
            lookup(body, owner, f);
            const btTransform toWorld = body->getWorldTransform() * toBullet(materialToBody(object, f));
            if (what.outlines)
                if (const std::shared_ptr<const FragmentMesh>& mesh = state.fragmentMesh(f))
                    drawOutline(*mesh, toWorld, pieceColor(f), *out);
            if (what.sphereLevel < 0)
                continue;
            const SphereForest& forest = state.sphereForest();
            const SphereTree& tree = forest.tree();
            for (Index node = 0; node < tree.nodeCount(); ++node)
            {
                const SphereNode& n = tree.nodes[node];
                if (forest.isFree(node) || int(n.level) != what.sphereLevel ||
                    forest.pointFragment(n.point) != f)
                    continue;
                const btVector3 c = toWorld * toBullet(tree.center(node));
                const btScalar r = btScalar(n.radius);
                for (int axis = 0; axis < 3; ++axis)
                {
                    const btVector3 normal = toWorld.getBasis().getColumn(axis);
                    const btVector3 start = toWorld.getBasis().getColumn((axis + 1) % 3);
                    out->drawArc(c, normal, start, r, r, 0, btScalar(2 * M_PI), pieceColor(f), false, 30);
                }
            }
        }
    }
    if (!what.contacts)
        return;
    btDispatcher& dispatcher = *world().getDispatcher();
    for (int m = 0; m < dispatcher.getNumManifolds(); ++m)
    {
        const btPersistentManifold* manifold = dispatcher.getManifoldByIndexInternal(m);
        ObjectId object = 0;
        FragmentId f = 0;
        if (!lookup(manifold->getBody0(), object, f) && !lookup(manifold->getBody1(), object, f))
            continue;
        for (int p = 0; p < manifold->getNumContacts(); ++p)
        {
            const btManifoldPoint& point = manifold->getContactPoint(p);
            const btVector3 color =
                point.getDistance() <= 0 ? btVector3(1, 0.2f, 0.15f) : btVector3(1, 0.75f, 0.2f);
            out->drawContactPoint(point.getPositionWorldOnB(), point.m_normalWorldOnB, point.getDistance(),
                                  point.getLifeTime(), color);
            out->drawLine(point.getPositionWorldOnB(),
                          point.getPositionWorldOnB() + point.m_normalWorldOnB * btScalar(what.normalLength),
                          btVector3(0.2f, 0.85f, 1));
        }
    }
}

} // namespace shatter::fracture
