#include <csignal>

#include "cli/commands.h"

namespace strata::cli {
namespace {

std::atomic<bool> g_cancel{false};
std::atomic<bool> g_reload{false};

extern "C" void HandleSignal(int) {
  // Only an atomic store: everything else happens on the runner's cancellation watcher.
  g_cancel.store(true);
}

extern "C" void HandleHangup(int) { g_reload.store(true); }

}  // namespace

const std::atomic<bool>& CancelFlag() { return g_cancel; }

std::atomic<bool>& ReloadFlag() { return g_reload; }

void InstallReloadHandler() {
  struct sigaction action {};
  action.sa_handler = HandleHangup;
  sigemptyset(&action.sa_mask);
  sigaction(SIGHUP, &action, nullptr);
}

void InstallSignalHandlers(bool once) {
  struct sigaction action {};
  action.sa_handler = HandleSignal;
  // SA_RESETHAND: the handler runs once, then the default action (the process ends) is back.
  action.sa_flags = once ? SA_RESETHAND : 0;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, nullptr);
  sigaction(SIGTERM, &action, nullptr);
}

}  // namespace strata::cli
