// Spread-out contact selection for the self-adapting budget (TVCG §5.2), Bullet-free.
//
// Why. Algorithm 1 stops at the first m contacts, relying on the maximum-distance order (§5.1, §5.3) to
// spread them over the contact area. That holds for the original surface, whose points are in
// max-distance order, but not along a crack: the new surface points of §6.3 are inserted deep in the
// tree under the few nodes next to the cut, so the first m crack contacts can all sit under one node,
// and a fragment resting on its sibling gets a one-sided support and slides. The collision algorithm
// therefore lets the query collect a few times m candidates and keeps m of them here, spread out by
// farthest-point sampling: the deepest candidate first (it carries the penetration to resolve), then
// repeatedly the candidate farthest from those kept (the extremes of the contact patch, which give the
// solver its support polygon).
//
// Candidates are taken in classes, a later class only when the earlier ones are used up:
//  1. contacts within ε that were contacts at the previous step. A resting pair then keeps exactly
//     the same points step after step, and Bullet's warm starting keeps their impulses; re-choosing
//     among near-equivalent points every step churns the solver and lets a stack creep sideways.
//  2. new contacts within ε;
//  3. speculative candidates (farther than ε, reported because the bodies approach fast): they carry
//     no load yet, and choosing them for their spread would starve the points that hold a body up.
#pragma once

#include "shatter/math.h"

#include <span>
#include <vector>

namespace shatter
{

/// One candidate contact as the selection sees it.
struct SelectionCandidate
{
    Vec3 point;               ///< world position
    Real depth = 0;           ///< signed distance, negative = penetration
    bool persisted = false;   ///< was a contact of the pair at the previous step
    bool speculative = false; ///< farther than ε
};

/// Writes to `kept` the indices of at most `keep` candidates chosen as described in the file comment,
/// in selection order (all of them, in order, if there are at most `keep`). `minDistance` is scratch.
/// Deterministic: ties go to the lower index. O(candidates × keep).
void selectSpreadContacts(std::span<const SelectionCandidate> candidates, Index keep,
                          std::vector<Index>& kept, std::vector<Real>& minDistance);

} // namespace shatter
