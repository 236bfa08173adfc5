// The intra-op thread pool: a few std::jthreads that run the tasks of one
// parallel region, the calling thread taking tasks too.  A runtime program
// owns one (runtime::program::set_threads) and hands it to its ops through
// op_io::pool; ops split their work into tasks (output channels, column
// ranges, images) whose results do not depend on how many threads run them.
//
//   thread_pool pool(4);                       // 4 threads: the caller + 3
//   parallel_tasks(&pool, tasks, [&](std::int64_t t) { ... });  // t in [0, tasks)
//   parallel_tasks(nullptr, tasks, f);         // the same tasks in order, here
//
// One region runs at a time per pool (a second caller waits); a region opened
// from inside a task runs its tasks inline, so nesting never deadlocks.  The
// first exception a task throws is rethrown by the caller once every task has
// finished.
//
// Which thread runs a task: thread k of P (the caller is 0) owns the tasks
// [k T / P, (k + 1) T / P) of a region of T tasks and takes them first, then
// helps with the ranges after its own (k + 1, k + 2, ... wrapping).  Ops split
// their outputs into tasks in memory order (channel ranges, row ranges,
// images), so the same thread writes the same part of consecutive ops'
// tensors, and an op reads what its own core wrote (an element-wise op after a
// conv split over output channels reads the conv's half from its own cache;
// handing tasks to whichever thread came first sent half of them across).
// Within a range tasks start in increasing order, and the caller takes the
// ranges in increasing order, so a task may wait for an earlier task of its
// region (task_flags): the lowest unfinished task has started, or is next in
// its range, which its owner or the caller reaches without waiting.
//
// Firmware and builds without threads (Cortex-M, LITEGRAPH_NO_THREADS,
// LITEGRAPH_NO_XSIMD) get a stub of size 1 that runs every task inline: no
// thread, no heap, no synchronisation is reachable there.
#pragma once

#include <cstdint>

#if defined(LITEGRAPH_NO_THREADS) || defined(LITEGRAPH_NO_XSIMD) || \
    (defined(__ARM_ARCH_PROFILE) && __ARM_ARCH_PROFILE == 'M')
#define LITEGRAPH_SINGLE_THREAD 1
#else
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <vector>
#endif

namespace litegraph {

#if defined(LITEGRAPH_SINGLE_THREAD)

class thread_pool {
public:
    explicit thread_pool(unsigned = 1) {}
    static unsigned default_threads() { return 1; }
    unsigned size() const { return 1; }
    template <class F>
    void run(std::int64_t tasks, F&& f) {
        for (std::int64_t t = 0; t < tasks; ++t) f(t);
    }
};

/// Without threads the tasks run in order: every earlier task is done.
class task_flags {
public:
    explicit task_flags(std::int64_t) {}
    void set(std::int64_t) {}
    void wait(std::int64_t) const {}
};

#else

class thread_pool {
public:
    /// `threads` in all, the caller included (0: default_threads()).
    explicit thread_pool(unsigned threads) {
        if (threads == 0) threads = default_threads();
        next_ = std::make_unique<std::atomic<std::int64_t>[]>(threads);
        workers_.reserve(threads - 1);
        for (unsigned i = 1; i < threads; ++i) workers_.emplace_back([this, i] { work(i); });
    }
    thread_pool(const thread_pool&) = delete;
    thread_pool& operator=(const thread_pool&) = delete;
    ~thread_pool() {
        {
            std::lock_guard<std::mutex> l(m_);
            stop_.store(true);
        }
        wake_.notify_all();
        workers_.clear();  // joins
    }

    /// Every core the system reports (at least 1).
    static unsigned default_threads() { return std::max(1u, std::thread::hardware_concurrency()); }
    unsigned size() const { return static_cast<unsigned>(workers_.size()) + 1; }

    /// Runs f(t) for every t in [0, tasks) and returns when all have run.
    template <class F>
    void run(std::int64_t tasks, F&& f) {
        if (tasks <= 0) return;
        if (tasks == 1 || workers_.empty() || depth() > 0) {
            for (std::int64_t t = 0; t < tasks; ++t) f(t);
            return;
        }
        std::lock_guard<std::mutex> one_region(region_);
        job j;
        j.tasks = tasks;
        j.ctx = static_cast<void*>(&f);
        j.call = [](void* c, std::int64_t t) { (*static_cast<std::remove_reference_t<F>*>(c))(t); };
        j.parts = size();
        j.next = next_.get();
        for (unsigned k = 0; k < j.parts; ++k) next_[k].store(j.first(k));
        {
            std::lock_guard<std::mutex> l(m_);
            job_ = &j;
            generation_.fetch_add(1);
        }
        wake_.notify_all();  // no system call when every worker is still spinning
        execute(j, 0);
        // The workers usually finish within microseconds of the caller: spin
        // on the counters before sleeping on the condition variable.
        auto finished = [&] { return j.done.load() == tasks && active_.load() == 0; };
        for (int i = 0; i < spin_rounds && !finished(); ++i) relax();
        {
            std::unique_lock<std::mutex> l(m_);
            done_.wait(l, finished);
            job_ = nullptr;
        }
        if (j.error) std::rethrow_exception(j.error);
    }

private:
    struct job {
        std::int64_t tasks = 0;
        unsigned parts = 1;                         // one range of tasks per thread
        std::atomic<std::int64_t>* next = nullptr;  // per range: the next task to take
        std::atomic<std::int64_t> done{0};
        void* ctx = nullptr;
        void (*call)(void*, std::int64_t) = nullptr;
        std::mutex error_m;
        std::exception_ptr error;

        /// The first task of thread k's range (k == parts: the end).
        std::int64_t first(unsigned k) const {
            return tasks * static_cast<std::int64_t>(k) / static_cast<std::int64_t>(parts);
        }
    };

    /// Regions open on this thread (tasks run inline inside one).
    static int& depth() {
        thread_local int d = 0;
        return d;
    }

    /// Thread `self`'s share of j: its own range, then the ranges after it.
    static void execute(job& j, unsigned self) {
        ++depth();
        for (unsigned i = 0; i < j.parts; ++i) {
            const unsigned k = (self + i) % j.parts;
            const std::int64_t end = j.first(k + 1);
            for (;;) {
                const std::int64_t t = j.next[k].fetch_add(1);
                if (t >= end) break;
                try {
                    j.call(j.ctx, t);
                } catch (...) {
                    std::lock_guard<std::mutex> l(j.error_m);
                    if (!j.error) j.error = std::current_exception();
                }
                j.done.fetch_add(1);
            }
        }
        --depth();
    }

    /// A pause in a spin loop (lets the other hyper-thread run).
    static void relax() {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        __asm__ __volatile__("yield");
#endif
    }

    void work(unsigned self) {
        std::uint64_t seen = 0;
        for (;;) {
            // Ops open regions back to back: spin a little for the next one
            // before sleeping (a futex wake-up costs tens of microseconds).
            for (int i = 0; i < spin_rounds && generation_.load() == seen && !stop_.load(); ++i)
                relax();
            job* j = nullptr;
            {
                std::unique_lock<std::mutex> l(m_);
                wake_.wait(l, [&] { return stop_.load() || (job_ && generation_.load() != seen); });
                if (stop_.load()) return;
                seen = generation_.load();
                j = job_;
                active_.fetch_add(1);
            }
            execute(*j, self);
            {
                std::lock_guard<std::mutex> l(m_);
                active_.fetch_sub(1);
            }
            done_.notify_all();
        }
    }

    /// Pauses per spin: 5 to 150 microseconds, as the CPU's pause latency goes
    /// (about 130 on the AMD EPYC this was tuned on).
    static constexpr int spin_rounds = 1 << 11;

    std::mutex region_;  // one parallel region at a time
    std::mutex m_;       // guards job_ and the changes of generation_, active_, stop_
    std::condition_variable wake_, done_;
    job* job_ = nullptr;
    std::atomic<std::uint64_t> generation_{0};  // read without the lock while spinning
    std::atomic<int> active_{0};
    std::atomic<bool> stop_{false};
    std::unique_ptr<std::atomic<std::int64_t>[]> next_;  // the region's per-range counters
    std::vector<std::jthread> workers_;  // last: joined before the rest is destroyed
};

/// One flag per task of a region, for a task that must wait until an earlier
/// task has finished (an in-place op whose output overwrites input an earlier
/// task reads).  Tasks start in increasing order, so waiting only for lower
/// task numbers never deadlocks; set the flag even when the task throws
/// (flag_guard), or its waiters spin for ever.
class task_flags {
public:
    explicit task_flags(std::int64_t tasks) : done_(static_cast<std::size_t>(tasks)) {}
    void set(std::int64_t t) {
        done_[static_cast<std::size_t>(t)].store(true, std::memory_order_release);
    }
    /// Returns once task t called set (spins, then yields its core).
    void wait(std::int64_t t) const {
        const auto& d = done_[static_cast<std::size_t>(t)];
        for (int i = 0; !d.load(std::memory_order_acquire); ++i) {
            if (i < 256) {
#if defined(__x86_64__) || defined(__i386__)
                __builtin_ia32_pause();
#elif defined(__aarch64__)
                __asm__ __volatile__("yield");
#endif
            } else {
                std::this_thread::yield();
            }
        }
    }

private:
    std::vector<std::atomic<bool> > done_;
};

#endif

/// Sets task t's flag when it goes out of scope (the task returned or threw).
struct flag_guard {
    task_flags& flags;
    std::int64_t task;
    ~flag_guard() { flags.set(task); }
};

/// Runs f(t) for t in [0, tasks) on `pool`, or in order on this thread when
/// there is none.
template <class F>
void parallel_tasks(thread_pool* pool, std::int64_t tasks, F&& f) {
    if (pool && pool->size() > 1 && tasks > 1) {
        pool->run(tasks, f);
        return;
    }
    for (std::int64_t t = 0; t < tasks; ++t) f(t);
}

/// The threads a pool offers (1 without one).
inline unsigned pool_threads(const thread_pool* pool) {
    return pool ? pool->size() : 1;
}

/// A pass over planes (the last two dims of an N x C x H x W tensor) split
/// into bands: task t of `tasks` takes the elements [begin(t), end(t)) of each
/// of the `planes` planes of `plane` elements, the top rows first.  A conv
/// split over its planes' columns (kernels::conv2d_units, Winograd's tile
/// rows, im2col's row bands) gives thread k of P about the k-th band of every
/// plane as well (the pool's ranges, above), so a concat after it, split this
/// way, reads on each thread what that thread's core wrote (an upsampling
/// splits in bands of output rows alike).  Band edges fall on multiples of 16
/// elements.
struct plane_bands {
    std::int64_t planes = 0, plane = 0, tasks = 1;

    /// `threads` bands when the pass has at least `min_elements` elements and
    /// a plane 16 elements per band; else one task.
    static plane_bands of(std::int64_t planes, std::int64_t plane, unsigned threads,
                          std::int64_t min_elements) {
        plane_bands b{planes, plane, 1};
        const auto t = static_cast<std::int64_t>(threads);
        if (t > 1 && planes * plane >= min_elements && plane >= 16 * t) b.tasks = t;
        return b;
    }
    std::int64_t begin(std::int64_t t) const {
        return t >= tasks ? plane : plane * t / tasks / 16 * 16;
    }
    std::int64_t end(std::int64_t t) const { return begin(t + 1); }
};

}  // namespace litegraph
