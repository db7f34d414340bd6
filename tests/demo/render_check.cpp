// Renderer test without the scene library: breaks the procedural brick analytically into Voronoi
// fragments (tests/support), uploads each ObjectState fragment mesh, renders them pulled apart, and
// checks that the image is not blank and that crack faces are shaded apart from the original surface
// (the same frame rendered with the crack colour equal to the surface colour must differ).
//
//     shatter_demo_render_check OUT.png
#include "camera.h"
#include "gl_window.h"
#include "mesh_upload.h"
#include "palette.h"
#include "render_target.h"
#include "renderer.h"
#include "screenshot.h"

#include "fracture_fixtures.h"
#include "object_state.h"
#include "test_assets.h"

#include <glad/gl.h>

#include <cstdio>
#include <memory>
#include <random>
#include <vector>

using namespace shatter;
using namespace shatter::demo;

int main(int argc, char** argv)
{
    if (argc != 2)
    {
        std::fprintf(stderr, "usage: %s OUT.png\n", argv[0]);
        return 2;
    }
    try
    {
        const auto asset = test::sharedAsset("brick");
        auto state = std::make_shared<ObjectState>(asset);
        test::AnalyticFracture fixture(asset->tetMesh, asset->surface);
        std::mt19937_64 rng(7);
        state->apply(test::randomVoronoiSplit(fixture, asset->tetMesh, 0, 7, rng));
        const std::vector<FragmentId> live = state->liveFragments();
        std::printf("brick: %zu live fragments\n", live.size());
        if (live.size() < 2)
            throw std::runtime_error("the split made no fragments");

        GlWindow window(
            {.width = 960, .height = 600, .visible = false, .vsync = false, .title = "render check"});
        std::printf("%s\n", window.glDescription().c_str());
        Renderer renderer;
        RenderTarget target;
        target.resize(960, 600, 4);

        const Vec3 objectCenter = asset->surface.bounds().center();
        std::vector<GpuMesh> meshes;
        std::vector<Mat4f> models;
        Eigen::AlignedBox3f bounds;
        std::size_t crackTriangles = 0;
        for (FragmentId f : live)
        {
            const FragmentMesh& mesh = *state->fragmentMesh(f);
            for (Index t = 0; t < mesh.surface.triangles.size(); ++t)
                crackTriangles += mesh.isCrack(t) ? 1 : 0;
            meshes.emplace_back(buildMeshVertices(mesh, NormalMode::Smooth));
            // Pull each fragment away from the object's centre, and lift the brick onto the ground.
            const Vec3 offset = 0.6 * (mesh.surface.bounds().center() - objectCenter);
            Mat4f model = Mat4f::Identity();
            model.block<3, 1>(0, 3) =
                (offset - Vec3(0, asset->surface.bounds().min.y() - 0.02, 0)).cast<float>();
            models.push_back(model);
            const auto& b = meshes.back().bounds();
            bounds.extend(Eigen::Vector3f((model * b.min().homogeneous()).head<3>()));
            bounds.extend(Eigen::Vector3f((model * b.max().homogeneous()).head<3>()));
        }
        if (crackTriangles == 0)
            throw std::runtime_error("no crack triangles in the fragment meshes");

        OrbitCamera camera;
        camera.pose.yawDegrees = 30;
        camera.pose.pitchDegrees = 28;
        camera.frame(bounds);

        auto render = [&](bool distinctCracks)
        {
            std::vector<DrawItem> items;
            const Appearance look = appearanceFor("brick");
            for (std::size_t i = 0; i < meshes.size(); ++i)
                items.push_back({&meshes[i], models[i], look.surface,
                                 distinctCracks ? look.crack : look.surface, look.gloss, 0});
            FrameSettings frame;
            frame.camera = &camera;
            frame.width = target.width();
            frame.height = target.height();
            frame.groundY = 0;
            frame.sceneBounds = bounds;
            target.bindScene();
            LineBatch none;
            renderer.render(frame, items, {}, none, none);
            target.resolveAndBindFinal();
            return readFinalImage(target);
        };
        const std::vector<std::uint8_t> image = render(true);
        const std::vector<std::uint8_t> plain = render(false);
        writePng(argv[1], target.width(), target.height(), image);

        const double deviation = luminanceDeviation(image);
        std::size_t differing = 0;
        for (std::size_t i = 0; i < image.size(); i += 3)
            if (std::abs(int(image[i]) - int(plain[i])) + std::abs(int(image[i + 1]) - int(plain[i + 1])) +
                    std::abs(int(image[i + 2]) - int(plain[i + 2])) >
                24)
                ++differing;
        std::printf(
            "%zu crack triangles, %zu triangles drawn, luminance deviation %.1f, %zu pixels show crack "
            "shading, wrote %s\n",
            crackTriangles, renderer.lastTriangleCount(), deviation, differing, argv[1]);
        if (glGetError() != GL_NO_ERROR)
            throw std::runtime_error("OpenGL reported an error");
        if (deviation < 8)
            throw std::runtime_error("the image is blank");
        if (differing < 500)
            throw std::runtime_error("crack faces are not shaded apart from the original surface");
        return 0;
    }
    catch (const std::exception& e)
    {
        std::fprintf(stderr, "render check failed: %s\n", e.what());
        return 1;
    }
}
