// Run statistics out: the summary of a history (means, maxima, median step), the per-step CSV in the
// columns of TVCG Tables 2-3, and the JSON summary that shatter_run --json, the golden regression files
// and scripts/bench.sh read.
#include "shatter/error.h"
#include "shatter/scenes/scene_world.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>

namespace shatter::scenes
{

namespace
{

// Every StepStats column with its name, so that mean, max, CSV and JSON walk one list.
struct Column
{
    const char* name;
    std::function<double(const StepStats&)> get;
    std::function<void(StepStats&, double)> set;
};

template <typename T>
Column column(const char* name, T StepStats::*member)
{
    return {name, [member](const StepStats& s) { return double(s.*member); },
            [member](StepStats& s, double v)
            {
                if constexpr (std::is_integral_v<T>)
                    s.*member = T(std::llround(v));
                else
                    s.*member = T(v);
            }};
}

const std::vector<Column>& columns()
{
    static const std::vector<Column> list = {
        column("step", &StepStats::step),
        column("time", &StepStats::time),
        column("total_ms", &StepStats::totalMs),
        column("collision_ms", &StepStats::collisionMs),
        column("physics_ms", &StepStats::physicsMs),
        column("update_ms", &StepStats::updateMs),
        column("fracture_ms", &StepStats::fractureMs),
        column("output_contacts", &StepStats::outputContacts),
        column("colliding_points", &StepStats::collidingPoints),
        column("body_pairs", &StepStats::bodyPairs),
        column("budget_limited_pairs", &StepStats::budgetLimitedPairs),
        column("fragments", &StepStats::fragments),
        column("triangles", &StepStats::triangles),
        column("fracture_events", &StepStats::fractureEvents),
        column("failed_events", &StepStats::failedEvents),
        column("bodyless_fragments", &StepStats::bodylessFragments),
        column("non_finite_bodies", &StepStats::nonFiniteBodies),
        column("fracture_evaluations", &StepStats::fractureEvaluations),
        column("bound_rejections", &StepStats::boundRejections),
        column("unready_impacts", &StepStats::unreadyImpacts),
        column("fragment_limit_impacts", &StepStats::fragmentLimitImpacts),
        column("max_impact_energy", &StepStats::maxImpactEnergy),
        column("fracture_main_ms", &StepStats::fractureMainMs),
        column("fracture_job_ms", &StepStats::fractureJobMs),
        column("fracture_wait_ms", &StepStats::fractureWaitMs),
        column("fracture_latency_steps", &StepStats::fractureLatencySteps),
        column("max_penetration", &StepStats::maxPenetration),
        column("lowest_body_y", &StepStats::lowestBodyY),
    };
    return list;
}

nlohmann::ordered_json statsJson(const StepStats& s, bool skipStep)
{
    nlohmann::ordered_json j = nlohmann::ordered_json::object();
    for (const Column& c : columns())
    {
        if (skipStep && std::string_view(c.name) == "step")
            continue;
        const double v = c.get(s);
        if (v == std::floor(v) && std::abs(v) < 1e15)
            j[c.name] = (long long)(v);
        else
            j[c.name] = v;
    }
    return j;
}

void writeText(const std::filesystem::path& file, const std::string& text)
{
    if (file.has_parent_path())
    {
        std::error_code ec;
        std::filesystem::create_directories(file.parent_path(), ec);
    }
    std::ofstream out(file, std::ios::binary);
    if (!out)
        throw Error(file.string(), "cannot be opened for writing");
    out << text;
    out.close();
    if (!out)
        throw Error(file.string(), "write error");
}

} // namespace

RunSummary summarize(const std::vector<StepStats>& history)
{
    RunSummary r;
    r.steps = int(history.size());
    if (history.empty())
        return r;
    r.simulatedSeconds = history.back().time;
    for (const Column& c : columns())
    {
        double sum = 0, max = c.get(history.front());
        for (const StepStats& s : history)
        {
            sum += c.get(s);
            max = std::max(max, c.get(s));
        }
        c.set(r.mean, sum / double(history.size()));
        c.set(r.max, max);
    }
    // Mean of doubles without the integer rounding of the counting columns' setters.
    std::vector<double> totals;
    double maxWithoutCollision = 0;
    for (const StepStats& s : history)
    {
        totals.push_back(s.totalMs);
        maxWithoutCollision = std::max(maxWithoutCollision, s.totalMs - s.collisionMs);
        r.fractureEvents += s.fractureEvents;
        r.failedEvents += s.failedEvents;
        r.bodylessFragments += s.bodylessFragments;
        r.nonFiniteBodies += s.nonFiniteBodies;
        r.budgetLimitedPairs += s.budgetLimitedPairs;
        r.fragmentLimitImpacts += s.fragmentLimitImpacts;
        r.maxPenetration = std::max(r.maxPenetration, s.maxPenetration);
    }
    std::sort(totals.begin(), totals.end());
    const std::size_t n = totals.size();
    r.medianTotalMs = n % 2 ? totals[n / 2] : 0.5 * (totals[n / 2 - 1] + totals[n / 2]);
    if (r.medianTotalMs > 0)
    {
        r.maxOverMedian = totals.back() / r.medianTotalMs;
        r.maxWithoutCollisionOverMedian = maxWithoutCollision / r.medianTotalMs;
    }
    r.lowestBodyY = history.front().lowestBodyY;
    for (const StepStats& s : history)
        r.lowestBodyY = std::min(r.lowestBodyY, s.lowestBodyY);
    r.finalFragments = history.back().fragments;
    return r;
}

void writeCsv(const std::filesystem::path& file, const std::vector<StepStats>& history)
{
    std::string text;
    for (const Column& c : columns())
        text += std::string(text.empty() ? "" : ",") + c.name;
    text += '\n';
    for (const StepStats& s : history)
    {
        bool first = true;
        for (const Column& c : columns())
        {
            if (!first)
                text += ',';
            first = false;
            text += nlohmann::json(c.get(s)).dump(); // shortest round-trip form
        }
        text += '\n';
    }
    writeText(file, text);
}

std::string summaryJson(const RunSummary& s)
{
    nlohmann::ordered_json o;
    o["scene"] = s.scene;
    o["collision"] = collisionName(s.options.collision);
    o["contacts"] = contactsName(s.options.contacts);
    o["restructure"] = restructureName(s.options.restructure);
    o["seed"] = s.options.seed;
    o["fracture_enabled"] = s.options.fracture;
    o["workers"] = s.options.workers;
    o["latency_steps"] = s.options.latencySteps;
    o["collision_threads"] = s.options.collisionThreads;
    o["realtime"] = s.options.realtime;
    o["time_step"] = s.timeStep;
    o["steps"] = s.steps;
    o["simulated_seconds"] = s.simulatedSeconds;
    o["ground_present"] = s.groundPresent;
    o["ground_height"] = s.groundHeight;
    o["mean"] = statsJson(s.mean, true);
    o["max"] = statsJson(s.max, true);
    o["median_total_ms"] = s.medianTotalMs;
    o["max_over_median"] = s.maxOverMedian;
    o["max_without_collision_over_median"] = s.maxWithoutCollisionOverMedian;
    o["fracture_events"] = s.fractureEvents;
    o["failed_events"] = s.failedEvents;
    o["bodyless_fragments"] = s.bodylessFragments;
    o["non_finite_bodies"] = s.nonFiniteBodies;
    o["budget_limited_pairs"] = s.budgetLimitedPairs;
    o["fragment_limit_impacts"] = s.fragmentLimitImpacts;
    o["final_fragments"] = s.finalFragments;
    o["max_penetration"] = s.maxPenetration;
    o["lowest_body_y"] = s.lowestBodyY;
    o["state_hash"] = s.stateHash;
    // A scene's name comes from its file name, which need not be UTF-8: such bytes print as U+FFFD.
    return o.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

void writeSummaryJson(const std::filesystem::path& file, const RunSummary& summary)
{
    writeText(file, summaryJson(summary));
}

} // namespace shatter::scenes
