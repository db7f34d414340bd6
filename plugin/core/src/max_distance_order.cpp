// Maximum-distance ordering, TVCG §5.1.
//
// The paper builds the order with an O(n²) pass over pairwise distances. We produce exactly the same
// sequence (same ties) in about O(n log n) for well-spread points:
//
//  * One static k-d tree over the points (median splits, small leaf buckets, tight boxes). Every
//    point keeps a key = squared distance to the nearest chosen point (+inf before anything is
//    chosen, -1 once chosen); every tree node caches the best (largest key, lowest point index) of
//    its subtree, so the next point of the order is read at the root.
//  * Choosing point c lowers keys to squaredDistance(p, c). A subtree is skipped when the squared
//    distance from c to its box is at least the subtree's largest key: no key can go down there.
//    The largest key is the current sampling radius², which shrinks as the order grows, so the
//    updates stay local (a ball of about one sampling spacing around c).
//  * The first pair is the exact diameter: a lower bound from extreme points along 13 directions
//    and a few double sweeps, then a dual-tree search over box pairs whose largest possible squared
//    distance still reaches the bound. Lexicographic ties are settled inside that search.
//
// Why the pruning is exact: box bounds are built from the same coordinate differences the point
// distances use, and IEEE rounding is monotone, so a computed box bound never overshoots a computed
// point distance. The comparisons keep a relative margin of 1e-12 anyway (it only costs visits).
#include "max_distance_order.h"

#include "shatter/error.h"

#include <algorithm>
#include <limits>
#include <string>

namespace shatter
{
namespace
{

constexpr Index kLeafSize = 8;
constexpr Real kShrink = 1 - 1e-12; ///< margin for "bound ≥ key" (skip) tests
constexpr Real kGrow = 1 + 1e-12;   ///< margin for "bound < best" (skip) tests

struct KdNode
{
    Vec3 lo = Vec3::Zero(); ///< tight bounds of the subtree's points
    Vec3 hi = Vec3::Zero();
    Index begin = 0; ///< slot range [begin, end)
    Index end = 0;
    Index left = kInvalidIndex; ///< kInvalidIndex for a leaf
    Index right = kInvalidIndex;
    Index minPoint = kInvalidIndex; ///< lowest point index in the subtree
};
static_assert(sizeof(KdNode) == 72, "KdNode layout changed");

/// Squared distance from p to the box (0 inside); never above squaredDistance(p, q) for q in it.
Real boxMinDistance2(const KdNode& n, const Vec3& p)
{
    Real s = 0;
    for (int a = 0; a < 3; ++a)
    {
        const Real d = std::max({n.lo[a] - p[a], p[a] - n.hi[a], Real(0)});
        s += d * d;
    }
    return s;
}

/// Largest squared distance between a point of box a and a point of box b.
Real boxMaxDistance2(const Vec3& aLo, const Vec3& aHi, const Vec3& bLo, const Vec3& bHi)
{
    Real s = 0;
    for (int k = 0; k < 3; ++k)
    {
        const Real d = std::max(aHi[k] - bLo[k], bHi[k] - aLo[k]);
        s += d * d;
    }
    return s;
}

bool better(Real keyA, Index pointA, Real keyB, Index pointB)
{
    return keyA > keyB || (keyA == keyB && pointA < pointB);
}

class KdTree
{
public:
    explicit KdTree(std::span<const Vec3> points) : points(points)
    {
        const Index n = Index(points.size());
        slotPoint.resize(n);
        for (Index i = 0; i < n; ++i)
        {
            slotPoint[i] = i;
        }
        nodes.reserve(2 * (n / kLeafSize + 1));
        build(0, n);
        slotPosition.resize(n);
        slotOf.resize(n);
        for (Index s = 0; s < n; ++s)
        {
            slotPosition[s] = points[slotPoint[s]];
            slotOf[slotPoint[s]] = s;
        }
    }

    std::span<const Vec3> points;
    std::vector<KdNode> nodes; ///< node 0 is the root
    std::vector<Vec3> slotPosition;
    std::vector<Index> slotPoint; ///< slot → point index
    std::vector<Index> slotOf;    ///< point index → slot

private:
    Index build(Index begin, Index end)
    {
        const Index id = Index(nodes.size());
        nodes.push_back({});
        KdNode node;
        node.begin = begin;
        node.end = end;
        Aabb box;
        for (Index s = begin; s < end; ++s)
        {
            box.grow(points[slotPoint[s]]);
            node.minPoint = std::min(node.minPoint, slotPoint[s]);
        }
        node.lo = box.min;
        node.hi = box.max;
        if (end - begin > kLeafSize)
        {
            int axis = 0;
            box.extent().maxCoeff(&axis);
            const Index mid = begin + (end - begin) / 2;
            std::nth_element(slotPoint.begin() + begin, slotPoint.begin() + mid, slotPoint.begin() + end,
                             [&](Index a, Index b)
                             {
                                 const Real ca = points[a][axis];
                                 const Real cb = points[b][axis];
                                 return ca < cb || (ca == cb && a < b);
                             });
            node.left = build(begin, mid);
            node.right = build(mid, end);
        }
        nodes[id] = node;
        return id;
    }
};

/// Farthest-point sampling state on top of the k-d tree.
class FarthestPointSampler
{
public:
    explicit FarthestPointSampler(const KdTree& tree)
        : tree(tree), key(tree.slotPoint.size(), std::numeric_limits<Real>::infinity()),
          best(tree.nodes.size())
    {
    }

    /// Marks point c as chosen and lowers every other key to its distance from c.
    void choose(Index c)
    {
        chosenSlot = tree.slotOf[c];
        chosenPosition = tree.points[c];
        key[chosenSlot] = -1;
        update(0);
    }

    /// The unchosen point with the largest key (lowest index on ties), or kInvalidIndex if none.
    Index next() const { return best[0].key >= 0 ? best[0].point : kInvalidIndex; }

private:
    struct Best
    {
        Real key = std::numeric_limits<Real>::infinity();
        Index point = 0;
    };

    void update(Index id)
    {
        const KdNode& n = tree.nodes[id];
        const bool holdsChosen = chosenSlot >= n.begin && chosenSlot < n.end;
        if (!holdsChosen && boxMinDistance2(n, chosenPosition) * kShrink >= best[id].key)
        {
            return;
        }
        Best b{-std::numeric_limits<Real>::infinity(), kInvalidIndex};
        if (n.left == kInvalidIndex)
        {
            for (Index s = n.begin; s < n.end; ++s)
            {
                if (key[s] > 0)
                {
                    key[s] = std::min(key[s], squaredDistance(tree.slotPosition[s], chosenPosition));
                }
                if (better(key[s], tree.slotPoint[s], b.key, b.point))
                {
                    b = {key[s], tree.slotPoint[s]};
                }
            }
        }
        else
        {
            update(n.left);
            update(n.right);
            const Best& l = best[n.left];
            const Best& r = best[n.right];
            b = better(l.key, l.point, r.key, r.point) ? l : r;
        }
        best[id] = b;
    }

    const KdTree& tree;
    std::vector<Real> key;  ///< per slot
    std::vector<Best> best; ///< per node
    Index chosenSlot = 0;
    Vec3 chosenPosition = Vec3::Zero();
};

/// Exact diameter search: the best pair found so far and the dual-tree recursion that refines it.
class DiameterSearch
{
public:
    explicit DiameterSearch(const KdTree& tree) : tree(tree) {}

    void offer(Index i, Index j)
    {
        if (i == j)
        {
            return;
        }
        if (i > j)
        {
            std::swap(i, j);
        }
        const Real d2 = squaredDistance(tree.points[i], tree.points[j]);
        if (d2 > bestD2 || (d2 == bestD2 && std::pair(i, j) < bestPair))
        {
            bestD2 = d2;
            bestPair = {i, j};
        }
    }

    void search(Index a, Index b)
    {
        const KdNode& na = tree.nodes[a];
        const KdNode& nb = tree.nodes[b];
        const Real bound = boxMaxDistance2(na.lo, na.hi, nb.lo, nb.hi);
        if (bound * kGrow < bestD2 ||
            (bound <= bestD2 && std::min(na.minPoint, nb.minPoint) > bestPair.first))
        {
            return; // nothing farther, and no tie that could be lexicographically smaller
        }
        const bool leafA = na.left == kInvalidIndex;
        const bool leafB = nb.left == kInvalidIndex;
        if (leafA && leafB)
        {
            searchLeaves(na, nb, a == b);
        }
        else if (a == b)
        {
            search(na.left, na.left);
            search(na.left, na.right);
            search(na.right, na.right);
        }
        else if (leafB || (!leafA && na.end - na.begin >= nb.end - nb.begin))
        {
            searchOrdered(b, na.left, na.right);
        }
        else
        {
            searchOrdered(a, nb.left, nb.right);
        }
    }

    Real bestD2 = -1;
    std::pair<Index, Index> bestPair{kInvalidIndex, kInvalidIndex};

private:
    /// search(fixed, c0) and search(fixed, c1), the more promising first.
    void searchOrdered(Index fixed, Index c0, Index c1)
    {
        const KdNode& f = tree.nodes[fixed];
        const KdNode& n0 = tree.nodes[c0];
        const KdNode& n1 = tree.nodes[c1];
        if (boxMaxDistance2(f.lo, f.hi, n0.lo, n0.hi) < boxMaxDistance2(f.lo, f.hi, n1.lo, n1.hi))
        {
            std::swap(c0, c1);
        }
        search(fixed, c0);
        search(fixed, c1);
    }

    void searchLeaves(const KdNode& na, const KdNode& nb, bool same)
    {
        for (Index s = na.begin; s < na.end; ++s)
        {
            const Vec3& p = tree.slotPosition[s];
            if (boxMaxDistance2(p, p, nb.lo, nb.hi) * kGrow < bestD2)
            {
                continue;
            }
            for (Index t = same ? s + 1 : nb.begin; t < nb.end; ++t)
            {
                const Real d2 = squaredDistance(p, tree.slotPosition[t]);
                if (d2 >= bestD2)
                {
                    offer(tree.slotPoint[s], tree.slotPoint[t]);
                }
            }
        }
    }

    const KdTree& tree;
};

std::pair<Index, Index> farthestPairIn(const KdTree& tree)
{
    const std::span<const Vec3> points = tree.points;
    const Index n = Index(points.size());
    DiameterSearch search(tree);

    // Lower bound: all pairs among the extreme points along 13 directions (one of each ±u of the
    // 26 lattice directions), then double sweeps (farthest point from the last end, by a scan).
    std::vector<Index> extremes;
    for (int code = 14; code < 27; ++code)
    {
        const Vec3 u(code % 3 - 1, code / 3 % 3 - 1, code / 9 - 1);
        Index lo = 0;
        Index hi = 0;
        Real loT = u.dot(points[0]);
        Real hiT = loT;
        for (Index i = 1; i < n; ++i)
        {
            const Real t = u.dot(points[i]);
            lo = t < loT ? (loT = t, i) : lo;
            hi = t > hiT ? (hiT = t, i) : hi;
        }
        extremes.push_back(lo);
        extremes.push_back(hi);
    }
    for (size_t a = 0; a < extremes.size(); ++a)
    {
        for (size_t b = a + 1; b < extremes.size(); ++b)
        {
            search.offer(extremes[a], extremes[b]);
        }
    }
    if (search.bestD2 <= 0)
    {
        return {0, 1}; // the extreme points coincide along x, y and z: every point is the same
    }
    Index from = search.bestPair.first;
    for (int sweep = 0; sweep < 4; ++sweep)
    {
        const Real before = search.bestD2;
        Index to = from;
        Real far = -1;
        for (Index k = 0; k < n; ++k)
        {
            const Real d2 = squaredDistance(points[k], points[from]);
            to = d2 > far ? (far = d2, k) : to;
        }
        search.offer(from, to);
        from = to;
        if (search.bestD2 == before && sweep > 0)
        {
            break;
        }
    }
    search.search(0, 0);
    return search.bestPair;
}

/// Bad input: more points than 32-bit indices address, or a coordinate that is NaN or infinite.
void checkPoints(std::span<const Vec3> points, const char* function)
{
    if (points.size() >= size_t(kInvalidIndex))
    {
        throw Error("<memory>", std::string(function) + ": too many points for 32-bit indices");
    }
    for (size_t i = 0; i < points.size(); ++i)
    {
        if (!points[i].allFinite())
        {
            throw Error("<memory>",
                        std::string(function) + ": point " + std::to_string(i) + " is not finite");
        }
    }
}

} // namespace

std::pair<Index, Index> farthestPair(std::span<const Vec3> points)
{
    checkPoints(points, "farthestPair");
    if (points.size() < 2)
    {
        throw Error("<memory>",
                    "farthestPair needs at least two points, got " + std::to_string(points.size()));
    }
    const KdTree tree(points);
    return farthestPairIn(tree);
}

std::vector<Index> orderByMaxDistance(std::span<const Vec3> points)
{
    checkPoints(points, "orderByMaxDistance");
    const size_t n = points.size();
    if (n < 2)
    {
        return n == 1 ? std::vector<Index>{0} : std::vector<Index>{};
    }
    const KdTree tree(points);
    const auto [first, second] = farthestPairIn(tree);
    std::vector<Index> order;
    order.reserve(n);
    FarthestPointSampler sampler(tree);
    for (Index c : {first, second})
    {
        order.push_back(c);
        sampler.choose(c);
    }
    for (Index c = sampler.next(); c != kInvalidIndex; c = sampler.next())
    {
        order.push_back(c);
        sampler.choose(c);
    }
    SHATTER_ASSERT(order.size() == n, "maximum-distance order lost points");
    return order;
}

} // namespace shatter
