/*
 * A QEMU TCG plugin (qemu-user's -plugin option) that counts the guest instructions a program
 * retires and prints the total to stderr at exit:
 *     insn-count: <instructions>
 * Debian ships qemu-user with plugin support but without QEMU's sample plugins, so this is
 * the few lines such a counter needs. Each translated block adds its instruction count to one
 * 64-bit counter, inline, every time it runs (the probe programs are single-threaded). Built
 * for the host by scripts/insn-count.py.
 *
 * The declarations below are the part of QEMU's stable plugin API (API version 1, QEMU 7.2)
 * that this file uses, written out so that it builds without QEMU's source tree.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
typedef struct qemu_info_t qemu_info_t;
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 = 0 };

extern void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
                                                  void (*cb)(qemu_plugin_id_t id,
                                                             struct qemu_plugin_tb* tb));
extern size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb* tb);
extern void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb* tb,
                                                     enum qemu_plugin_op op, void* ptr,
                                                     uint64_t imm);
extern void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id,
                                           void (*cb)(qemu_plugin_id_t id, void* userdata),
                                           void* userdata);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

static uint64_t retired;

static void on_translate(qemu_plugin_id_t id, struct qemu_plugin_tb* tb) {
  (void)id;
  qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &retired,
                                           qemu_plugin_tb_n_insns(tb));
}

static void on_exit(qemu_plugin_id_t id, void* userdata) {
  (void)id;
  (void)userdata;
  fprintf(stderr, "insn-count: %" PRIu64 "\n", retired);
}

__attribute__((visibility("default"))) int qemu_plugin_install(qemu_plugin_id_t id,
                                                               const qemu_info_t* info, int argc,
                                                               char** argv) {
  (void)info;
  (void)argc;
  (void)argv;
  qemu_plugin_register_vcpu_tb_trans_cb(id, on_translate);
  qemu_plugin_register_atexit_cb(id, on_exit, NULL);
  return 0;
}
