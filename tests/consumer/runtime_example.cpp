// A game's side of Shatter: links the runtime only (Shatter::Bullet, Fracture, Core), loads a cache
// cooked offline, and runs the user guide's examples, extracted verbatim: collision only (a plate comes
// to rest on the ground), FractureSystem (a glass plate dropped from 2 m breaks), its break events
// (the plate's owner hears of every break), a debris budget (crumbs are removed, counted) and a
// checkpoint of the broken plate restored into a fresh world.
// Usage: shatter_runtime_example cache.shatter
#include "guide_anchors.inc"
#include "guide_break_events.inc"
#include "guide_collision.inc"
#include "guide_debris.inc"
#include "guide_debug_draw.inc"
#include "guide_fracture.inc"
#include "guide_save_restore.inc"

#include <shatter/error.h>

#include <cstdio>

int main(int argc, char** argv)
{
    if (argc != 2)
    {
        std::fprintf(stderr, "usage: %s cache-file\n", argv[0]);
        return 2;
    }
    try
    {
        // At rest on the ground: the centre of mass within the plate's 2 cm thickness.
        const double height = dropPlate(argv[1]);
        std::printf("collision only: the plate's centre of mass rests at y = %.4f m\n", height);
        if (!(height > 0 && height < 0.02))
        {
            std::printf("FAILED: the plate is not resting on the ground\n");
            return 1;
        }
        const std::size_t pieces = breakPlate(argv[1]);
        std::printf("fracture: the plate dropped from 2 m ends as %zu bodies\n", pieces);
        if (pieces < 2)
        {
            std::printf("FAILED: the plate did not break\n");
            return 1;
        }
        GameObject prop{"plate"};
        const std::size_t again = breakPlate(
            argv[1], [&](shatter::fracture::FractureSystem& fracture, shatter::fracture::ObjectId object)
            { listenForBreaks(fracture, object, prop); });
        std::printf("break events: %d for %zu bodies\n", prop.breaks, again);
        if (prop.breaks < 1 || again != pieces)
        {
            std::printf("FAILED: no break event, or the listener changed the simulation\n");
            return 1;
        }
        int removed = 0;
        const std::size_t kept =
            breakPlate(argv[1], [&](shatter::fracture::FractureSystem& fracture, shatter::fracture::ObjectId)
                       { limitDebris(fracture, removed); });
        std::printf("debris: %zu bodies kept, %d crumbs removed\n", kept, removed);
        if (kept + std::size_t(removed) != pieces)
        {
            std::printf("FAILED: the debris budget lost count of the pieces\n");
            return 1;
        }
        breakPlate(argv[1], [](shatter::fracture::FractureSystem& fracture, shatter::fracture::ObjectId)
                   { drawFracture(fracture); }); // no drawer installed: draws nothing, must not fail
        // A checkpoint of the broken plate, restored into a fresh world in place of a new plate.
        Checkpoint saved;
        breakPlate(argv[1], {},
                   [&](shatter::fracture::FractureSystem& fracture, shatter::fracture::ObjectId)
                   { saved = checkpoint(fracture); });
        const std::shared_ptr<const shatter::Asset> asset = shatter::loadAsset(argv[1]);
        const std::size_t resumed = breakPlate(
            argv[1],
            [&](shatter::fracture::FractureSystem& fracture, shatter::fracture::ObjectId)
            {
                fracture.clear(); // the new plate goes: the saved pieces take its place (same object id)
                resume(fracture, saved, asset);
            });
        std::printf("save and restore: %zu + %zu bytes, %zu bodies after resuming\n", saved.breakables.size(),
                    saved.contacts.size(), resumed);
        if (saved.breakables.empty() || saved.contacts.empty() || resumed < pieces)
        {
            std::printf("FAILED: the restored plate lost pieces\n");
            return 1;
        }
        const shatter::fracture::ObjectSettings wall = anchoredWall();
        if (wall.dynamic || wall.anchorBoxes.size() != 1)
        {
            std::printf("FAILED: the anchored wall's settings\n");
            return 1;
        }
        std::printf("OK\n");
        return 0;
    }
    catch (const shatter::Error& e)
    {
        std::fprintf(stderr, "shatter error: %s\n", e.what());
        return 1;
    }
}
