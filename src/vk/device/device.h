#pragma once
// The Vulkan device of the compute backend: instance, physical device choice (choice.cpp), one
// compute queue, memory pools and buffers (memory.cpp, pools.cpp), compute pipelines from embedded
// SPIR-V (pipelines.cpp) and synchronous command submission (submission.cpp). Include it as
// "vk/device.h".
//
// Conventions every compute kernel follows:
// - Descriptors: set 0 holds only storage buffers, binding i = the i-th buffer passed to dispatch(),
//   whole buffer. They are pushed (VK_KHR_push_descriptor, which the device must have), so there is
//   no descriptor pool and no descriptor set to manage.
// - Large grids: a dispatch of more workgroups than maxComputeWorkGroupCount[0] (65535 on lavapipe,
//   2^31-1 on NVIDIA) is split into several vkCmdDispatch calls. A pipeline created with
//   `group_offset` reserves the LAST 32-bit word of its push constants for the index of the first
//   workgroup of each part; dispatch() writes it, and the shader uses
//     uint group = gl_WorkGroupID.x + pc.group_offset;
//   A pipeline without `group_offset` refuses a grid that needs splitting (Error(Unsupported)).
// - Synchronization: enqueue() records a pass into the open batch (one command buffer) and returns;
//   submit() records its pass into the batch too, then submits the batch and waits for it; finish()
//   submits the batch and waits. So passes between two host reads cost one submission and one wait
//   (0.04 ms together on the H200 with the fence and command buffer reused; the wait polls the fence
//   for up to 5 ms before it blocks). Every pass starts with a full memory
//   barrier against everything recorded or submitted before it, and a submission ends with one that
//   makes device writes visible to the host, so mapped buffers may be read after submit() or
//   finish() returns. download(), submit(), finish() and upload() (except a small one into an
//   unmapped buffer, which is enqueued) wait for everything enqueued before them; a buffer freed while enqueued work
//   may use it is released once that work has completed. Inside one pass, the recorder owes barrier() between dependent
//   dispatches/copies. A recorder that throws leaves what it recorded in the batch (Vulkan cannot take commands back):
//   those commands still run, and write only the buffers that pass was given.
// - Pass timing (set_pass_timing): run_pass() brackets a pass by two timestamps and waits for it
//   to read its GPU time (on, the default), or enqueues it untimed (off: what an engine does unless
//   EngineOptions::gpu_timing asks for times; each wait costs a round trip).
//
// Faults: a wait longer than DeviceOptions::wait_timeout_ns is Error(Timeout); a lost device is
// Error(DeviceLost), and every later call that needs the GPU throws it too (make a new Device); a
// failed allocation is Error(OutOfDeviceMemory) naming the size. Buffers that a timed-out or lost
// submission may still use are released only once its fence has signalled (never reused early).
// DeviceOptions::faults injects each of these for tests.
//
// Lifetime: every Buffer must be destroyed before its Device. A Device is not thread-safe.

#include <vulkan/vulkan.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gfxq/capabilities.h"
#include "gfxq/engine.h"
#include "vk/device/memory.h"
#include "vk/device/pipeline.h"

namespace gfxq::vk {

//! How the device is created.
struct DeviceOptions {
  bool validation = false;       //!< enable VK_LAYER_KHRONOS_validation; Error(Unsupported) if missing
  bool sync_validation = false;  //!< also synchronization validation (implies validation)
  std::string choice;            //!< index or name substring; empty: GFXQ_VK_DEVICE, else by type
  //! When set, validation messages recorded after the last take_debug_messages() and during
  //! destruction are appended here by ~Device (tests use it to check a clean teardown).
  std::vector<std::string>* teardown_messages = nullptr;
  //! Capture the driver's compiler statistics of every pipeline (registers, spills, ...) for
  //! Device::pipeline_statistics(); Error(Unsupported) when the device lacks
  //! VK_KHR_pipeline_executable_properties.
  bool pipeline_statistics = false;
  //! How long one GPU wait (a submission's fence) may take before Error(Timeout).
  uint64_t wait_timeout_ns = 60ull * 1000 * 1000 * 1000;
  //! Faults to inject (tests): the k-th buffer allocation, the k-th GPU wait.
  FaultInjection faults = {};
  //! Size of the sub-allocator's memory blocks (0: 64 MiB, at most an eighth of the heap); a
  //! buffer larger than half a block gets a dedicated allocation.
  uint64_t block_bytes = 0;
  //! Bytes of freed dedicated allocations, and apart from them of empty pool blocks, kept per memory
  //! type for reuse (unset: a quarter of the largest device-local heap; 0: every dedicated allocation
  //! is returned to the driver at once, and every empty block but one).
  std::optional<uint64_t> cache_bytes;
};

//! What the device's memory pools hold (Device::memory_stats()).
struct MemoryStats {
  uint64_t blocks = 0;           //!< pool blocks allocated (one vkAllocateMemory each)
  uint64_t block_bytes = 0;      //!< bytes in those blocks
  uint64_t pooled_bytes = 0;     //!< bytes of live buffers inside blocks
  uint64_t dedicated = 0;        //!< buffers with an allocation of their own
  uint64_t dedicated_bytes = 0;  //!< bytes in those
  uint64_t buffers = 0;          //!< live buffers
  uint64_t allocations = 0;      //!< vkAllocateMemory calls since creation
  uint64_t buffer_requests = 0;  //!< create_buffer calls since creation
  uint64_t deferred = 0;         //!< freed buffers that queued, timed-out or lost submissions may still use
  uint64_t cached_bytes = 0;     //!< freed dedicated allocations kept for reuse
  uint64_t reuses = 0;           //!< buffer requests served from those
};

//! How many command buffers the device ran (Device::submit_stats()).
struct SubmitStats {
  uint64_t submissions = 0;  //!< command buffers submitted (each a batch of passes)
  uint64_t waits = 0;        //!< host waits for the GPU
  uint64_t fences_made = 0;  //!< fences created (each about 0.55 ms on the H200; kept and reused)
};

//! The compute device.
class Device {
 public:
  //! Creates instance and device. Error(Unsupported) with the reason when no device works, when
  //! the chosen device (options.choice or GFXQ_VK_DEVICE) matches nothing (the message lists the
  //! devices), or when validation is asked for and the layer is missing.
  static std::unique_ptr<Device> create(const DeviceOptions& options);
  //! Waits for the device to go idle, then destroys pipelines, pools, device and messenger (the
  //! instance is shared by the process's devices and kept: docs/ARCHITECTURE.md "Driver notes").
  ~Device();
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  //! What the driver reports, filled at creation.
  const VkCapabilities& caps() const noexcept { return caps_; }
  //! Validation messages (warnings and errors) recorded since the last call.
  std::vector<std::string> take_debug_messages();

  //! A buffer of `bytes` (at least 4), from a pool block or, when larger than half a block, an
  //! allocation of its own. Error(OutOfDeviceMemory) naming the size and the heap when it exceeds
  //! the heap, the largest allocation or the largest buffer, or the driver refuses it (or the
  //! allocation was injected to fail); Error(DeviceLost) after a device loss.
  Buffer create_buffer(uint64_t bytes, MemoryKind kind);
  //! What the memory pools hold now.
  MemoryStats memory_stats() const;
  //! True once a submission found the device lost (every later GPU call throws DeviceLost).
  bool lost() const noexcept;
  //! Copies host bytes into a buffer at `offset`. A mapped buffer is written directly, after the
  //! queued work (which may read it) has finished. Up to 64 KiB into an unmapped buffer is copied into
  //! a staging buffer of its own and the copy enqueued as a pass (no wait: later passes see the
  //! bytes). More goes in 32 MiB chunks through two staging buffers in turn, the host filling one on
  //! several threads while the GPU copies out of the other; upload() returns once every chunk has
  //! been copied, so `src` may be reused then.
  void upload(const Buffer& dst, const void* src, uint64_t bytes, uint64_t offset = 0);
  //! Copies buffer bytes at `offset` back to the host: submits what is queued and waits.
  void download(const Buffer& src, void* dst, uint64_t bytes, uint64_t offset = 0);
  //! One readback of download_many().
  struct Readback {
    const Buffer* src = nullptr;  //!< the buffer read
    void* dst = nullptr;          //!< host memory written
    uint64_t bytes = 0;           //!< bytes read
    uint64_t offset = 0;          //!< where in `src`
  };
  //! Several downloads after one wait (one submission when together they fit the 64 MiB staging
  //! buffer and none is mapped; else one download() each).
  void download_many(const std::vector<Readback>& reads);

  //! The cached pipeline for embedded shader `name` (see shaders/shaders.cmake). A second call
  //! with other bindings/push_bytes/group_offset for the same name is Error(Internal).
  //! `specialization` != 0 sets the shader's specialization constant 0 (a uint) to it, and
  //! `specialization1` != 0 constant 1: that pipeline is cached as "name#specialization" or
  //! "name#specialization/specialization1" (the name pipeline_statistics() takes).
  const Pipeline& pipeline(std::string_view name, uint32_t bindings, uint32_t push_bytes, bool group_offset = false,
                           uint32_t specialization = 0, uint32_t specialization1 = 0);

  //! Names of the pipelines created so far, sorted.
  std::vector<std::string> pipeline_names() const;

  //! The driver's statistics of pipeline `name` ("name = value" pairs per executable, e.g. the
  //! register count), captured when the device was created with DeviceOptions::pipeline_statistics;
  //! Error(InvalidInput) otherwise or for a pipeline not created yet.
  std::string pipeline_statistics(std::string_view name) const;

  //! Records `record(cmd)` as a pass of the open batch, submits the batch and waits (at most
  //! DeviceOptions::wait_timeout_ns, then Error(Timeout)); Error(DeviceLost) when the device is
  //! lost. Not reentrant.
  template <class F>
  void submit(F&& record) {
    record(next_pass());
    finish();
  }
  //! Records `record(cmd)` as a pass of the open batch and returns; the batch is submitted at the
  //! next wait. Errors of its execution (Timeout, DeviceLost) surface at that wait. Not reentrant.
  template <class F>
  void enqueue(F&& record) {
    record(next_pass());
  }
  //! Submits the open batch and waits for everything submitted (Error(Timeout),
  //! Error(DeviceLost) as submit()).
  void finish();
  //! Runs one pass: with pass timing on, submit() between timestamps 0 and 1, returning its GPU
  //! milliseconds (nullopt when the queue has no timestamps); off, enqueue() and nullopt.
  template <class F>
  std::optional<double> run_pass(F&& record) {
    if (!pass_timing_) {
      enqueue(std::forward<F>(record));
      return std::nullopt;
    }
    finish();  // the timestamps bracket this pass alone
    submit([&](VkCommandBuffer cmd) {
      timestamp(cmd, 0);
      record(cmd);
      timestamp(cmd, 1);
    });
    const double ms = elapsed_ms(0, 1);
    if (ms != ms) return std::nullopt;  // NaN: no timestamps
    return ms;
  }
  //! Whether run_pass() waits for each pass to time it (on by default).
  bool pass_timing() const noexcept { return pass_timing_; }
  //! Turns pass timing on or off.
  void set_pass_timing(bool on) noexcept { pass_timing_ = on; }
  //! Command buffers submitted and waited for since creation.
  SubmitStats submit_stats() const noexcept;
  //! Binds `p`, pushes descriptors for `buffers` (binding i = buffers[i], whole range) and the
  //! `p.push_bytes` bytes at `push` (nullptr: zeros), dispatches `groups_x` workgroups, split into
  //! parts of at most maxComputeWorkGroupCount[0] when `p.group_offset`. Error(Unsupported) for a
  //! buffer larger than maxStorageBufferRange or a grid too large for `p`.
  void dispatch(VkCommandBuffer cmd, const Pipeline& p, const std::vector<const Buffer*>& buffers, const void* push,
                uint32_t groups_x);
  //! dispatch() over byte ranges of buffers (binding i = ranges[i]).
  void dispatch_ranges(VkCommandBuffer cmd, const Pipeline& p, const std::vector<BufferRange>& ranges, const void* push,
                       uint32_t groups_x);
  //! Largest number of 4-byte elements one binding may hold (maxStorageBufferRange / 4, rounded
  //! down to a multiple of the offset alignment).
  uint64_t max_binding_elements() const noexcept;

  //! Number of GPU timestamp slots (timestamp() takes 0..kTimestampSlots-1).
  static constexpr uint32_t kTimestampSlots = 512;
  //! Records GPU timestamp `slot` once all earlier commands of `cmd` have completed
  //! (no-op when the queue has no timestamps: caps().timestamps).
  void timestamp(VkCommandBuffer cmd, uint32_t slot);
  //! Milliseconds between timestamps `from` and `to` written by the last submit(); NaN when the
  //! queue has no timestamps or a slot was not written.
  double elapsed_ms(uint32_t from, uint32_t to);

  //! A memory barrier inside one command buffer: compute-shader and transfer writes before it are
  //! visible to compute-shader and transfer reads and writes after it.
  void barrier(VkCommandBuffer cmd);

  //! Raw handles for code that records its own commands.
  VkDevice handle() const noexcept { return device_; }
  //! The physical device in use.
  VkPhysicalDevice physical() const noexcept { return physical_; }
  //! The queue family of the compute queue (for query pools and the like).
  uint32_t queue_family() const noexcept;

  struct Impl;  //!< instance, queue, pools, caches (device/internal.h)

 private:
  friend class Buffer;
  Device();
  VkCommandBuffer begin_commands();
  VkCommandBuffer next_pass();
  VkFence end_and_queue(VkCommandBuffer cmd);
  void wait_queued(VkCommandBuffer cmd, VkFence fence);
  void discard_commands(VkCommandBuffer cmd) noexcept;
  void free_buffer(Buffer& b) noexcept;
  void check_range(const Buffer& b, uint64_t bytes, uint64_t offset, const char* what) const;
  void check_not_lost(const char* what) const;
  void reap() noexcept;

  VkCapabilities caps_;
  bool pass_timing_ = true;
  VkDevice device_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gfxq::vk
