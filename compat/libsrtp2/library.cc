// Library-wide calls: initialisation, version, the event and log handlers, debug modules.
// The handlers are the only global state, as in libsrtp; they are atomics so installing one
// while another thread protects is not a data race.
#include <atomic>
#include <cstring>

#include "context.h"
#include "srtp2/auth.h"

namespace wireseal::compat {
namespace {

std::atomic<srtp_event_handler_func_t*> g_event_handler{nullptr};
std::atomic<srtp_log_handler_func_t*> g_log_handler{nullptr};
std::atomic<void*> g_log_data{nullptr};
std::atomic<bool> g_debug_srtp{false};
std::atomic<bool> g_initialized{false};

void log(srtp_log_level_t level, const char* message) {
  if (srtp_log_handler_func_t* h = g_log_handler.load()) {
    h(level, message, g_log_data.load());
  }
}

}  // namespace

void report_event(srtp_t session, std::uint32_t ssrc, srtp_event_t event) noexcept {
  if (srtp_event_handler_func_t* h = g_event_handler.load()) {
    srtp_event_data_t data{session, ssrc, event};
    h(&data);
  }
}

}  // namespace wireseal::compat

extern "C" {

// Nothing to set up (wireseal picks its kernels on first use, sessions need no registry), but
// a second srtp_init without srtp_shutdown fails with bad_param, as libsrtp's does.
srtp_err_status_t srtp_init(void) {
  return wireseal::compat::g_initialized.exchange(true) ? srtp_err_status_bad_param
                                                        : srtp_err_status_ok;
}
srtp_err_status_t srtp_shutdown(void) {
  wireseal::compat::g_initialized.store(false);
  return srtp_err_status_ok;
}

// libwebrtc replaces an auth type with its own at start-up (telegram-desktop links it with
// BIND_NOW, so the symbol must exist). The drop-in runs no caller code per packet: it accepts
// the call, and a policy naming an auth type other than NULL or HMAC-SHA1 is refused with
// bad_param at srtp_create / srtp_add_stream. A replaced HMAC-SHA1 stays wireseal's own.
srtp_err_status_t srtp_replace_auth_type(const srtp_auth_type_t* ct, srtp_auth_type_id_t /*id*/) {
  return ct == nullptr ? srtp_err_status_bad_param : srtp_err_status_ok;
}

const char* srtp_get_version_string(void) { return "libsrtp2 2.5.0 (wireseal)"; }
unsigned int srtp_get_version(void) { return 0x02050000; }

srtp_err_status_t srtp_install_event_handler(srtp_event_handler_func_t func) {
  wireseal::compat::g_event_handler.store(func);
  return srtp_err_status_ok;
}

srtp_err_status_t srtp_install_log_handler(srtp_log_handler_func_t func, void* data) {
  wireseal::compat::g_log_data.store(data);
  wireseal::compat::g_log_handler.store(func);
  return srtp_err_status_ok;
}

// The one debug module is "srtp" (wireseal logs nothing per packet); others do not exist.
srtp_err_status_t srtp_set_debug_module(const char* mod_name, int v) {
  if (mod_name == nullptr || std::strcmp(mod_name, "srtp") != 0) {
    return srtp_err_status_fail;
  }
  wireseal::compat::g_debug_srtp.store(v != 0);
  return srtp_err_status_ok;
}

srtp_err_status_t srtp_list_debug_modules(void) {
  wireseal::compat::log(srtp_log_level_info, "debug modules loaded:");
  wireseal::compat::log(srtp_log_level_info,
                        wireseal::compat::g_debug_srtp.load() ? "  srtp (on)" : "  srtp (off)");
  return srtp_err_status_ok;
}

}  // extern "C"
