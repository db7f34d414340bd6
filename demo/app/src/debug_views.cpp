#include "debug_views.h"

#include "palette.h"

#include "object_state.h"
#include "shatter/scenes/scene_world.h"

#include <BulletDynamics/Dynamics/btDiscreteDynamicsWorld.h>

#include <algorithm>
#include <cmath>

namespace shatter::demo
{
namespace
{
Eigen::Vector3f toFloat(const btVector3& v)
{
    return Eigen::Vector3f(float(v.x()), float(v.y()), float(v.z()));
}

Eigen::Vector4f withAlpha(const Eigen::Vector3f& c, float a)
{
    return Eigen::Vector4f(c.x(), c.y(), c.z(), a);
}

constexpr long kMaxSpheres = 6000;
constexpr long kMaxTetEdges = 400000;
} // namespace

DebugViews::DebugViews() = default;

DebugViews::~DebugViews()
{
    clear();
}

void DebugViews::clear()
{
    for (auto& [object, slice] : sliceTextures)
        glDeleteTextures(1, &slice.texture);
    sliceTextures.clear();
    tetLines.clear();
}

void DebugViews::collectLines(scenes::SceneWorld& world, const std::vector<BodyView>& views,
                              const OrbitCamera& camera, float sceneScale, LineBatch& depthLines,
                              LineBatch& overlayLines)
{
    drawn = {};
    const auto fragments = indexFragments(views);
    fracture::FractureSystem& system = world.fracture();

    if (settings.contacts)
    {
        btDispatcher* dispatcher = world.world().getDispatcher();
        // Sized by the view, not the scene, so they stay legible when zoomed in or out.
        const float normalLength = 0.05f * camera.pose.distance;
        const float mark = 0.006f * camera.pose.distance;
        for (int m = 0; m < dispatcher->getNumManifolds(); ++m)
        {
            const btPersistentManifold* manifold = dispatcher->getManifoldByIndexInternal(m);
            for (int p = 0; p < manifold->getNumContacts(); ++p)
            {
                const btManifoldPoint& point = manifold->getContactPoint(p);
                const Eigen::Vector3f at = toFloat(point.getPositionWorldOnB());
                const Eigen::Vector3f n = toFloat(point.m_normalWorldOnB);
                const bool touching = point.getDistance() <= 0;
                const Eigen::Vector4f color = touching ? Eigen::Vector4f(1.0f, 0.22f, 0.15f, 1)
                                                       : Eigen::Vector4f(1.0f, 0.75f, 0.2f, 1); // speculative
                overlayLines.cross(at, mark, color);
                const Eigen::Vector3f side = n.unitOrthogonal();
                overlayLines.arrow(at, at + normalLength * n, side, Eigen::Vector4f(0.2f, 0.85f, 1.0f, 1));
                ++drawn.contacts;
            }
        }
    }

    if (settings.spheres)
    {
        const Eigen::Vector3f u = camera.right(), v = camera.up();
        for (fracture::ObjectId object : system.objects())
        {
            const SphereForest& forest = system.state(object).sphereForest();
            const SphereTree& tree = forest.tree();
            for (Index node = 0; node < tree.nodeCount() && drawn.spheres < kMaxSpheres; ++node)
            {
                const SphereNode& n = tree.nodes[node];
                if (forest.isFree(node) || int(n.level) != settings.sphereLevel)
                    continue;
                const FragmentId f = forest.pointFragment(n.point);
                const auto it = fragments.find({object, f});
                if (it == fragments.end())
                    continue;
                const Eigen::Vector3f c = (it->second->materialToWorld * tree.center(node)).cast<float>();
                const float r = std::max(float(n.radius), 0.002f * sceneScale);
                overlayLines.circle(c, r, u, v, withAlpha(distinctColor(f), 0.9f), 28);
                ++drawn.spheres;
            }
        }
    }

    if (settings.tets)
    {
        for (fracture::ObjectId object : system.objects())
        {
            const TetLines& lines = tetsFor(system.state(object), object);
            for (const auto& [f, edges] : lines.edges)
            {
                const auto it = fragments.find({object, f});
                if (it == fragments.end())
                    continue;
                const Eigen::Matrix4f model = it->second->materialToWorld.matrix().cast<float>();
                const Eigen::Vector4f color = withAlpha(distinctColor(f) * 0.35f, 0.8f);
                for (std::size_t i = 0; i + 1 < edges.size() && drawn.tetEdges < kMaxTetEdges; i += 2)
                {
                    depthLines.line((model * edges[i].homogeneous()).head<3>(),
                                    (model * edges[i + 1].homogeneous()).head<3>(), color);
                    ++drawn.tetEdges;
                }
            }
        }
    }
}

const DebugViews::TetLines& DebugViews::tetsFor(const ObjectState& state, fracture::ObjectId object)
{
    TetLines& lines = tetLines[object];
    if (lines.fragmentCount == state.fragmentCount() && !lines.edges.empty())
        return lines;
    lines = {};
    lines.fragmentCount = state.fragmentCount();
    const TetMesh& mesh = state.asset().tetMesh;
    const FragmentField& field = state.field();
    // An edge is drawn for a fragment when both its nodes belong to it; edges across a crack are left
    // out, which makes the cracks visible in the wireframe.
    for (const Edge& e : mesh.edges)
    {
        const FragmentId f = field.node(e[0]).fragment;
        if (f != field.node(e[1]).fragment || !state.alive(f))
            continue;
        auto& list = lines.edges[f];
        list.push_back(mesh.nodes[e[0]].cast<float>());
        list.push_back(mesh.nodes[e[1]].cast<float>());
    }
    return lines;
}

const DebugViews::SliceTexture& DebugViews::sliceFor(const ObjectState& state, fracture::ObjectId object)
{
    SliceTexture& slice = sliceTextures[object];
    if (slice.texture && slice.fragmentCount == state.fragmentCount() && slice.axis == settings.sliceAxis &&
        slice.offset == settings.sliceOffset)
        return slice;
    slice.fragmentCount = state.fragmentCount();
    slice.axis = settings.sliceAxis;
    slice.offset = settings.sliceOffset;

    const Aabb box = state.asset().surface.bounds();
    const int a = std::clamp(settings.sliceAxis, 0, 2), ua = (a + 1) % 3, va = (a + 2) % 3;
    const Vec3 extent = box.extent();
    const double level = box.min[a] + double(settings.sliceOffset) * extent[a];
    const int resolution = 192;
    const double longest = std::max(extent[ua], extent[va]);
    const int w = std::max(8, int(resolution * extent[ua] / longest));
    const int h = std::max(8, int(resolution * extent[va] / longest));
    std::vector<float> texels(std::size_t(w) * h * 2);
    for (int j = 0; j < h; ++j)
        for (int i = 0; i < w; ++i)
        {
            Vec3 p;
            p[a] = level;
            p[ua] = box.min[ua] + (i + 0.5) / w * extent[ua];
            p[va] = box.min[va] + (j + 0.5) / h * extent[va];
            const TetLocation where = state.locate(p);
            const FragmentId f = state.fragmentAt(where);
            float* t = &texels[(std::size_t(j) * w + i) * 2];
            if (f == kNoFragment || !state.alive(f))
            {
                t[0] = -10;
                t[1] = 0;
                continue;
            }
            t[0] = float(f);
            t[1] = float(state.penetration(p, where, f).depth);
        }
    if (!slice.texture)
        glGenTextures(1, &slice.texture);
    glBindTexture(GL_TEXTURE_2D, slice.texture);
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RG32F, w, h, 0, GL_RG, GL_FLOAT, texels.data());
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    const double uv[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
    for (int k = 0; k < 4; ++k)
    {
        Vec3 p;
        p[a] = level;
        p[ua] = box.min[ua] + uv[k][0] * extent[ua];
        p[va] = box.min[va] + uv[k][1] * extent[va];
        slice.corners[k] = p.cast<float>();
    }
    slice.band = float(std::max(extent.maxCoeff() / 40, 1e-4));
    return slice;
}

std::vector<SliceItem> DebugViews::slices(scenes::SceneWorld& world, const std::vector<BodyView>& views)
{
    std::vector<SliceItem> items;
    if (!settings.slice)
        return items;
    fracture::FractureSystem& system = world.fracture();
    for (const BodyView& v : views)
    {
        if (v.kind != BodyView::Kind::Fragment)
            continue;
        const SliceTexture& slice = sliceFor(system.state(v.object), v.object);
        SliceItem item;
        item.texture = slice.texture;
        item.model = v.materialToWorld.matrix().cast<float>();
        for (int k = 0; k < 4; ++k)
            item.corners[k] = slice.corners[k];
        item.fragment = float(v.fragment);
        item.band = slice.band;
        item.color = distinctColor(v.fragment);
        items.push_back(item);
        ++drawn.slices;
    }
    return items;
}

} // namespace shatter::demo
