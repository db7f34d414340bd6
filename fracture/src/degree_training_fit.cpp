// The fit of the example-based fracture degree (CVD §4.1): PCA of the examples' node-weight
// distributions with the paper's 2 % error tolerance, then an RBF network φ(r) = r with global support
// (eq. 12) regressing log N on (log E_D(N = 1)/γ, the PCA coefficients).
//
// Centres: one per distinct (orientation, height), its target the mean log N over the repeats (the
// search's spread over site seeds is noise the network should not chase). Instead of the paper's
// orthogonal-least-squares centre selection, every such point is a centre and the interpolation is
// smoothed (ridge λ on the diagonal, the standard smoothing spline); λ and the weight of the shape
// coordinates against the strength are chosen by 8-fold cross-validation with folds grouped by
// orientation, the same split as training vs held-out impacts (CVD §4.2: test orientations differ).
#include "degree_training.h"

#include "shatter/error.h"

#include <Eigen/Dense>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

namespace shatter::fracture
{
namespace
{

using Clock = std::chrono::steady_clock;

struct Centre
{
    int orientation = 0;        ///< index into the used orientations
    Real strength = 0;          ///< x₀
    Real target = 0;            ///< mean log N
    int count = 0;              ///< examples averaged
    std::vector<Index> degrees; ///< the examples' N
};

struct Network
{
    std::vector<Real> weights;
    Real bias = 0, slope = 0;
};

// The features of centre `c` (DegreeModel::features): its strength, its orientation's concentration
// and PCA coefficients, scaled.
void centreFeatures(const Centre& c, Real concentration, const Eigen::MatrixXd& coefficients, Real scale,
                    Real* x)
{
    x[0] = c.strength;
    x[1] = concentration;
    for (Eigen::Index k = 0; k < coefficients.cols(); ++k)
        x[k + 2] = scale * coefficients(c.orientation, k);
}

Real distance(const Real* a, const Real* b, int d)
{
    Real r2 = 0;
    for (int k = 0; k < d; ++k)
        r2 += (a[k] - b[k]) * (a[k] - b[k]);
    return std::sqrt(r2);
}

// Smoothed RBF with the tail (1, x₀): [Φ + λI, P; Pᵀ, 0] [w; a] = [y; 0].
Network solve(const std::vector<Real>& x, int d, const std::vector<Real>& y, Real smoothing)
{
    const Eigen::Index m = Eigen::Index(y.size());
    Eigen::MatrixXd a = Eigen::MatrixXd::Zero(m + 2, m + 2);
    Eigen::VectorXd rhs = Eigen::VectorXd::Zero(m + 2);
    for (Eigen::Index i = 0; i < m; ++i)
    {
        for (Eigen::Index j = 0; j < i; ++j)
            a(i, j) = a(j, i) = distance(&x[std::size_t(i * d)], &x[std::size_t(j * d)], d);
        a(i, i) = smoothing;
        a(i, m) = a(m, i) = 1;
        a(i, m + 1) = a(m + 1, i) = x[std::size_t(i * d)];
        rhs(i) = y[std::size_t(i)];
    }
    const Eigen::VectorXd s = a.partialPivLu().solve(rhs);
    Network net;
    net.weights.assign(s.data(), s.data() + m);
    net.bias = s(m);
    net.slope = s(m + 1);
    return net;
}

Real evaluate(const Network& net, const std::vector<Real>& centres, int d, const Real* x)
{
    Real v = net.bias + net.slope * x[0];
    for (std::size_t i = 0; i < net.weights.size(); ++i)
        v += net.weights[i] * distance(&centres[i * std::size_t(d)], x, d);
    return v;
}

Index roundedDegree(Real predicted, Index maxDegree)
{
    const Real rounded = std::round(std::isfinite(predicted) ? predicted : 2);
    return Index(std::clamp<Real>(rounded, 2, Real(std::max<Index>(maxDegree, 2))));
}

} // namespace

DegreeModel fitDegreeModel(const DegreeExamples& set, const DegreeTrainingSettings& settings,
                           DegreeFitStats* stats)
{
    constexpr const char* kSource = "fitDegreeModel";
    const auto start = Clock::now();
    // The fracturing examples and their orientations.
    std::vector<const DegreeExample*> used;
    for (const DegreeExample& e : set.examples)
        if (e.degree >= 2 && e.energyRatio > 0)
            used.push_back(&e);
    if (used.size() < 2)
        throw Error(kSource, "fewer than two training impacts fracture; raise the heights or lower γ");
    std::map<int, int> orientationRow; // example orientation → row of the PCA input
    for (const DegreeExample* e : used)
        orientationRow.emplace(e->orientation, 0);
    int rows = 0;
    for (auto& [o, row] : orientationRow)
        row = rows++;
    const Eigen::Index n =
        Eigen::Index(set.distributions.at(std::size_t(orientationRow.begin()->first)).size());

    const Real exponent = settings.distributionExponent > 0 ? settings.distributionExponent
                          : set.energyExponent > 0          ? 1 / (2 * set.energyExponent)
                                                            : 1;

    // PCA (CVD §4.1) through the Gram matrix of the centred distributions (rows ≪ nodes).
    Eigen::MatrixXd data(rows, n);
    for (const auto& [o, row] : orientationRow)
    {
        const std::vector<Real> dist = shapeDistribution(set.distributions.at(std::size_t(o)), exponent);
        if (Eigen::Index(dist.size()) != n)
            throw Error(kSource, "distributions of different sizes");
        data.row(row) = Eigen::Map<const Eigen::RowVectorXd>(dist.data(), n);
    }
    const Eigen::RowVectorXd mean = data.colwise().mean();
    const Eigen::MatrixXd centred = data.rowwise() - mean;
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(centred * centred.transpose());
    const Eigen::VectorXd values = eigen.eigenvalues().reverse().cwiseMax(0); // decreasing
    const Eigen::MatrixXd vectors = eigen.eigenvectors().rowwise().reverse();
    const Real total = values.sum();
    // Smallest k whose relative RMS reconstruction error √(Σ_{i≥k} λ_i / Σ λ_i) is within tolerance.
    int components = 0;
    if (total > 0)
    {
        Real rest = total;
        while (components < rows && std::sqrt(std::max<Real>(rest, 0) / total) > settings.pcaTolerance &&
               values(components) > 1e-14 * total)
            rest -= values(components++);
    }
    Eigen::MatrixXd basis(components, n); // orthonormal rows
    for (int k = 0; k < components; ++k)
        basis.row(k) = (centred.transpose() * vectors.col(k)).transpose() / std::sqrt(values(k));
    const Eigen::MatrixXd coefficients = centred * basis.transpose(); // rows × components
    std::vector<Real> concentration(std::size_t(rows), 0);            // x₁ unscaled, per row
    for (Eigen::Index r = 0; r < rows; ++r)
        concentration[std::size_t(r)] = distributionConcentration(Real(n) * data.row(r).squaredNorm());

    // Centres: distinct (orientation, height), targets averaged over the repeats.
    std::map<std::pair<int, int>, Centre> byImpact;
    for (const DegreeExample* e : used)
    {
        Centre& c = byImpact[{e->orientation, e->height}];
        c.orientation = orientationRow.at(e->orientation);
        c.strength = std::log(e->energyRatio);
        c.target += std::log(Real(e->degree));
        c.degrees.push_back(e->degree);
        ++c.count;
    }
    std::vector<Centre> centres;
    for (auto& [key, c] : byImpact)
    {
        c.target /= c.count;
        centres.push_back(c);
    }
    const std::size_t m = centres.size();
    Real strengthMean = 0, strengthVar = 0, shapeSquares = 0, concentrationMean = 0, concentrationVar = 0;
    for (const Centre& c : centres)
    {
        strengthMean += c.strength / Real(m);
        concentrationMean += concentration[std::size_t(c.orientation)] / Real(m);
    }
    for (const Centre& c : centres)
    {
        strengthVar += (c.strength - strengthMean) * (c.strength - strengthMean) / Real(m);
        const Real dc = concentration[std::size_t(c.orientation)] - concentrationMean;
        concentrationVar += dc * dc / Real(m);
        shapeSquares += coefficients.row(c.orientation).squaredNorm() / Real(m);
    }
    // With weight ω the shape coordinates' RMS spread (the concentration's standard deviation) is ω × the
    // strength's standard deviation.
    strengthVar = std::max<Real>(strengthVar, 1e-12);
    const Real unitScale = shapeSquares > 0 ? std::sqrt(strengthVar / shapeSquares) : Real(0);
    const Real unitConcentration = concentrationVar > 0 ? std::sqrt(strengthVar / concentrationVar) : Real(0);

    // Cross-validation over (λ, ω), folds grouped by orientation.
    // The score of a candidate: the fraction of held-out examples outside ±25 % of the search (the
    // acceptance measure), ties broken by the mean |log N̂ − log N|.
    constexpr int kFolds = 8;
    constexpr Real kTolerance = 0.25;
    constexpr Real kLogWeight = 0.1;
    auto features = [&](const std::vector<std::size_t>& which, Real cScale, Real scale, int d)
    {
        std::vector<Real> x(which.size() * std::size_t(d));
        for (std::size_t i = 0; i < which.size(); ++i)
        {
            const Centre& c = centres[which[i]];
            centreFeatures(c, cScale * concentration[std::size_t(c.orientation)],
                           coefficients.leftCols(d - 2), scale, &x[i * std::size_t(d)]);
        }
        return x;
    };
    Real bestError = std::numeric_limits<Real>::infinity(), bestSmoothing = settings.smoothingCandidates[0],
         bestWeight = settings.shapeWeightCandidates[0],
         bestConcentration = settings.concentrationWeightCandidates[0];
    const int folds = std::min(kFolds, rows);
    for (Real cWeight : settings.concentrationWeightCandidates)
        for (Real weight : settings.shapeWeightCandidates)
        {
            const int d = weight > 0 && components > 0 ? 2 + components : 2;
            const Real scale = weight * unitScale;
            const Real cScale = cWeight * unitConcentration;
            for (Real smoothing : settings.smoothingCandidates)
            {
                if (folds < 2)
                    break;
                Real error = 0;
                int count = 0;
                for (int f = 0; f < folds; ++f)
                {
                    std::vector<std::size_t> train, test;
                    for (std::size_t i = 0; i < m; ++i)
                        (centres[i].orientation % folds == f ? test : train).push_back(i);
                    if (train.size() < 2 || test.empty())
                        continue;
                    const std::vector<Real> xt = features(train, cScale, scale, d);
                    std::vector<Real> yt;
                    for (std::size_t i : train)
                        yt.push_back(centres[i].target);
                    const Network net = solve(xt, d, yt, smoothing);
                    const std::vector<Real> xv = features(test, cScale, scale, d);
                    for (std::size_t i = 0; i < test.size(); ++i)
                    {
                        const Real predicted = evaluate(net, xt, d, &xv[i * std::size_t(d)]);
                        const Real n = Real(roundedDegree(std::exp(predicted), set.maxFragments));
                        for (Index degree : centres[test[i]].degrees)
                        {
                            error += (std::abs(n - Real(degree)) > kTolerance * Real(degree) ? 1 : 0) +
                                     kLogWeight * std::abs(std::log(n / Real(degree)));
                            ++count;
                        }
                    }
                }
                if (count > 0 && error / count < bestError)
                {
                    bestError = error / count;
                    bestSmoothing = smoothing;
                    bestWeight = weight;
                    bestConcentration = cWeight;
                }
            }
        }

    // The final network on every centre.
    DegreeModel model;
    model.configurationHash = set.configurationHash;
    model.nodeCount = Index(n);
    model.toughness = set.toughness;
    model.maxDegree = std::max(set.maxFragments, 2);
    model.components = bestWeight > 0 ? components : 0;
    model.mean.assign(mean.data(), mean.data() + n);
    model.basis.resize(std::size_t(model.components) * std::size_t(n));
    for (int k = 0; k < model.components; ++k)
        for (Eigen::Index v = 0; v < n; ++v)
            model.basis[std::size_t(k) * std::size_t(n) + std::size_t(v)] = basis(k, v);
    model.shapeScale = model.components > 0 ? bestWeight * unitScale : 1;
    model.concentrationScale = bestConcentration * unitConcentration;
    model.distributionExponent = exponent;
    const int d = model.featureCount();
    std::vector<std::size_t> all(m);
    for (std::size_t i = 0; i < m; ++i)
        all[i] = i;
    model.centres = features(all, model.concentrationScale, model.shapeScale, d);
    std::vector<Real> y;
    for (const Centre& c : centres)
        y.push_back(c.target);
    const Network net = solve(model.centres, d, y, bestSmoothing);
    model.centreCount = int(m);
    model.weights = net.weights;
    model.polynomial = {net.bias, net.slope};

    if (stats)
    {
        stats->examples = int(used.size());
        stats->components = model.components;
        stats->centres = model.centreCount;
        stats->smoothing = bestSmoothing;
        stats->shapeWeight = bestWeight;
        stats->concentrationWeight = bestConcentration;
        stats->crossValidationError = std::isfinite(bestError) ? bestError : 0;
        stats->milliseconds = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
    }
    return model;
}

DegreeEvaluation evaluateDegreeModel(const DegreeModel& model, const DegreeExamples& set, Real tolerance)
{
    DegreeEvaluation out;
    Real errorSum = 0;
    double microseconds = 0;
    for (const DegreeExample& e : set.examples)
    {
        if (e.degree < 2)
            continue;
        const std::vector<Real>& dist = set.distributions.at(std::size_t(e.orientation));
        const auto start = Clock::now();
        const Real predicted = model.predict(dist, e.energyRatio);
        microseconds += std::chrono::duration<double, std::micro>(Clock::now() - start).count();
        const Index n = roundedDegree(predicted, e.maxDegree);
        const Real relative = std::abs(Real(n) - Real(e.degree)) / Real(e.degree);
        ++out.examples;
        errorSum += relative;
        if (relative <= tolerance + 1e-12)
            ++out.withinTolerance;
        const std::size_t size = std::size_t(std::max(n, e.degree)) + 1;
        if (out.modelHistogram.size() < size)
        {
            out.modelHistogram.resize(size, 0);
            out.searchHistogram.resize(size, 0);
        }
        ++out.modelHistogram[n];
        ++out.searchHistogram[e.degree];
    }
    if (out.examples > 0)
    {
        out.meanRelativeError = errorSum / out.examples;
        out.meanPredictMicroseconds = microseconds / out.examples;
    }
    return out;
}

} // namespace shatter::fracture
