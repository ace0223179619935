// The perm suite: an unprivileged sender may read but not set; and the
// helper that runs a program without CAP_SYS_ADMIN.
#include <linux/capability.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "checks.hpp"
#include "coolhand_nl.hpp"
#include "suites.hpp"

namespace coolhand::vmtest {

void suite_perm(Tap& t) {
  const std::string z0 = zone_dir("emul_zone0");
  const int zid = zone_id(z0);
  const auto window_before = read_file(z0 + "/event_window");
  const auto level_before = read_int(throttle(0) + "/throttling");

  const pid_t pid = ::fork();
  if (pid == 0) {
    // Child: an unprivileged sender (nobody), no capabilities.
    if (::setgid(65534) != 0 || ::setuid(65534) != 0) std::_Exit(90);
    Tap c("perm(uid 65534)");
    std::string why;
    auto nl = CoolhandNl::open(&why);
    if (!c.check(nl.has_value(), "family resolves for an unprivileged user", why)) std::_Exit(91);
    c.eq(::geteuid(), 65534u, "running as uid 65534");
    c.eq(set_steps(*nl, zid, 7, 7), -EPERM, "WINDOW_SET (steps) refused: EPERM");
    c.eq(set_window(*nl, zid, 1000, 2000), -EPERM, "WINDOW_SET (window) refused: EPERM");
    c.eq(set_level(*nl, 0, 5), -EPERM, "LEVEL_SET refused: EPERM");
    std::vector<NlMsg> rep;
    c.eq(nl->request(
             COOLHAND_CMD_TEMP_GET, false,
             [&](nl_msg* m) { nla_put_u32(m, COOLHAND_A_ZONE_ID, zid); }, &rep),
         0, "TEMP_GET allowed");
    rep.clear();
    c.eq(nl->request(COOLHAND_CMD_ZONE_GET, true, nullptr, &rep), 0, "ZONE_GET dump allowed");
    c.eq(rep.size(), size_t{2}, "dump complete");
    c.eq(write_file(throttle(0) + "/throttling", "5"), EACCES, "sysfs throttling write: EACCES");
    c.eq(write_file(z0 + "/event_step", "7 7"), EACCES, "sysfs event_step write: EACCES");
    std::fflush(stdout);
    std::_Exit(c.failed() ? 1 : 0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  t.check(WIFEXITED(status) && WEXITSTATUS(status) == 0, "unprivileged child saw only refusals",
          "child status " + std::to_string(status));
  t.eq(read_file(z0 + "/event_window"), window_before, "event window unchanged");
  t.eq(read_int(throttle(0) + "/throttling"), level_before, "throttling level unchanged");

  // And root may: the same requests succeed.
  std::string why;
  auto nl = CoolhandNl::open(&why);
  if (!t.check(nl.has_value(), "root opens the family", why)) return;
  t.eq(set_steps(*nl, zid, 1000, 1000), 0, "root WINDOW_SET allowed");
  t.eq(set_level(*nl, 0, 0), 0, "root LEVEL_SET allowed");
}

// Run PROG without CAP_SYS_ADMIN: dropped from the bounding set, so root's
// exec does not get it back (CAP_NET_ADMIN stays: the genl admin check
// passes and the module's own CAP_SYS_ADMIN check answers EPERM).
int exec_without_cap_sys_admin(char** argv) {
  if (::prctl(PR_CAPBSET_DROP, CAP_SYS_ADMIN, 0, 0, 0) != 0) {
    std::perror("PR_CAPBSET_DROP");
    return 1;
  }
  ::execv(argv[0], argv);
  std::perror(argv[0]);
  return 1;
}

}  // namespace coolhand::vmtest
