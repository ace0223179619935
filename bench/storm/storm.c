// Event storm driver for the coolhand module's emulated platform, run inside
// the qemu guest by bench/storm/guest-init.sh (never on the host).
//
//   storm seq TEMP_FILE VALUE...
//       Subscribes to the coolhand family's "events" group, writes the
//       VALUEs (m°C) to TEMP_FILE (/sys/devices/coolhand_emul/sensor<i>/temp)
//       one by one, 2 s apart, until an event arrives (a value inside the
//       zone's window raises none), and prints that event's COOLHAND_A_SEQ
//       (kmod/README 4.4: one counter for all the family's events). Two such
//       calls bracket a run: the events produced between them are the
//       difference.
//   storm write TEMP_FILE RATE SECONDS LOW HIGH
//       Writes LOW and HIGH (m°C) alternately to TEMP_FILE, RATE writes per
//       second for SECONDS, and ends on LOW. The pace is kept by writing
//       whatever is due every millisecond; when the writes cannot keep up,
//       it stops after SECONDS all the same. Prints the writes made, the
//       achieved rate and the writes that failed.
//
// Plain C and raw generic netlink, so it links statically into the guest's
// initramfs with no libraries.
#include <errno.h>
#include <fcntl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "../../kmod/include/uapi/coolhand.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int write_temp(int fd, long mc) {
  char buf[24];
  int n = snprintf(buf, sizeof buf, "%ld\n", mc);
  return pwrite(fd, buf, (size_t)n, 0) == n ? 0 : -1;
}

// Walks the attributes in [p, p + len), calling back for each.
static void for_each_attr(const char* p, int len, void (*fn)(const struct nlattr*, void*),
                          void* ctx) {
  while (len >= (int)NLA_HDRLEN) {
    const struct nlattr* a = (const struct nlattr*)p;
    if (a->nla_len < NLA_HDRLEN || a->nla_len > len) return;
    fn(a, ctx);
    len -= NLA_ALIGN(a->nla_len);
    p += NLA_ALIGN(a->nla_len);
  }
}

static const void* attr_data(const struct nlattr* a) {
  return (const char*)a + NLA_HDRLEN;
}
static int attr_len(const struct nlattr* a) {
  return a->nla_len - NLA_HDRLEN;
}

struct family {
  uint16_t id;
  uint32_t events_grp;
};

static void group_attr(const struct nlattr* a, void* ctx) {
  struct {
    const char* name;
    uint32_t id;
  }* g = ctx;
  if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_MCAST_GRP_NAME) g->name = attr_data(a);
  if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_MCAST_GRP_ID) memcpy(&g->id, attr_data(a), 4);
}

static void groups_attr(const struct nlattr* a, void* ctx) {
  struct family* f = ctx;
  struct {
    const char* name;
    uint32_t id;
  } g = {0, 0};
  for_each_attr(attr_data(a), attr_len(a), group_attr, &g);
  if (g.name && strcmp(g.name, COOLHAND_GENL_MCGRP_EVENTS) == 0) f->events_grp = g.id;
}

static void family_attr(const struct nlattr* a, void* ctx) {
  struct family* f = ctx;
  if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID) memcpy(&f->id, attr_data(a), 2);
  if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_MCAST_GROUPS)
    for_each_attr(attr_data(a), attr_len(a), groups_attr, f);
}

// Resolves the family and its "events" group through nlctrl.
static int resolve(int sock, struct family* f) {
  struct {
    struct nlmsghdr n;
    struct genlmsghdr g;
    char buf[64];
  } req;
  memset(&req, 0, sizeof req);
  struct nlattr* a = (struct nlattr*)req.buf;
  a->nla_type = CTRL_ATTR_FAMILY_NAME;
  a->nla_len = (uint16_t)(NLA_HDRLEN + sizeof COOLHAND_GENL_NAME);
  memcpy(req.buf + NLA_HDRLEN, COOLHAND_GENL_NAME, sizeof COOLHAND_GENL_NAME);
  req.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN + NLA_ALIGN(a->nla_len));
  req.n.nlmsg_type = GENL_ID_CTRL;
  req.n.nlmsg_flags = NLM_F_REQUEST;
  req.n.nlmsg_seq = 1;
  req.g.cmd = CTRL_CMD_GETFAMILY;
  req.g.version = 1;
  if (send(sock, &req, req.n.nlmsg_len, 0) < 0) return -1;
  char reply[8192];
  ssize_t n = recv(sock, reply, sizeof reply, 0);
  if (n < 0) return -1;
  const struct nlmsghdr* h = (const struct nlmsghdr*)reply;
  if (!NLMSG_OK(h, (unsigned)n) || h->nlmsg_type != GENL_ID_CTRL) return -1;
  const char* attrs = (const char*)NLMSG_DATA(h) + GENL_HDRLEN;
  memset(f, 0, sizeof *f);
  for_each_attr(attrs, (int)(h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN)), family_attr, f);
  return f->id && f->events_grp ? 0 : -1;
}

static void seq_attr(const struct nlattr* a, void* ctx) {
  if ((a->nla_type & NLA_TYPE_MASK) == COOLHAND_A_SEQ && attr_len(a) == 4)
    memcpy(ctx, attr_data(a), 4);
}

// Waits up to `timeout_ms` for an event of family `family_id`; its
// COOLHAND_A_SEQ in *seq. 1 when one arrived, 0 on timeout, -1 on error.
static int next_event(int sock, uint16_t family_id, int timeout_ms, uint32_t* seq) {
  for (;;) {
    struct pollfd p = {.fd = sock, .events = POLLIN};
    int r = poll(&p, 1, timeout_ms);
    if (r <= 0) return r;
    char buf[8192];
    ssize_t n = recv(sock, buf, sizeof buf, 0);
    if (n < 0) return -1;
    for (const struct nlmsghdr* h = (const struct nlmsghdr*)buf; NLMSG_OK(h, (unsigned)n);
         h = NLMSG_NEXT(h, n)) {
      if (h->nlmsg_type != family_id) continue;
      const char* attrs = (const char*)NLMSG_DATA(h) + GENL_HDRLEN;
      *seq = 0;
      for_each_attr(attrs, (int)(h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN)), seq_attr, seq);
      return 1;
    }
  }
}

// Writes each value in turn (a value inside the zone's current window raises
// nothing) until an event arrives; prints the first event's sequence number.
static int cmd_seq(const char* path, char** values, int count) {
  int sock = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
  struct family f;
  if (sock < 0 || resolve(sock, &f) != 0) {
    fprintf(stderr, "storm: cannot resolve the %s family: %s\n", COOLHAND_GENL_NAME,
            strerror(errno));
    return 1;
  }
  if (setsockopt(sock, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &f.events_grp, sizeof f.events_grp) !=
      0) {
    perror("storm: NETLINK_ADD_MEMBERSHIP");
    return 1;
  }
  for (int i = 0; i < count; ++i) {
    const long value = strtol(values[i], NULL, 10);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0 || write_temp(fd, value) != 0) {
      fprintf(stderr, "storm: cannot write %ld to %s: %s\n", value, path, strerror(errno));
      return 1;
    }
    close(fd);
    uint32_t seq = 0;
    const int r = next_event(sock, f.id, 2000, &seq);
    if (r < 0) {
      perror("storm: recv");
      return 1;
    }
    if (r == 1) {
      printf("%u\n", seq);
      return 0;
    }
  }
  fprintf(stderr, "storm: no event within 2 s of any write\n");
  return 1;
}

static int cmd_write(const char* path, long rate, long seconds, long low, long high) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    fprintf(stderr, "storm: cannot open %s: %s\n", path, strerror(errno));
    return 1;
  }
  const long total = rate * seconds;
  long done = 0;
  long failed = 0;
  const double t0 = now_s();
  const struct timespec tick = {0, 1000000};  // 1 ms
  for (;;) {
    const double t = now_s() - t0;
    if (t >= (double)seconds || done >= total) break;
    long due = (long)(t * (double)rate) + 1;
    if (due > total) due = total;
    // Writes 0, 2, 4, ... are HIGH, the others LOW. A write that falls
    // behind does not run past SECONDS catching up.
    while (done < due && (done % 64 != 0 || now_s() - t0 < (double)seconds)) {
      if (write_temp(fd, done % 2 ? low : high) != 0) ++failed;
      ++done;
    }
    nanosleep(&tick, NULL);
  }
  if (done % 2) write_temp(fd, low);  // end on LOW
  const double elapsed = now_s() - t0;
  close(fd);
  printf("storm: %ld writes in %.2f s (%.0f/s, target %ld/s), %ld failed\n", done, elapsed,
         (double)done / elapsed, rate, failed);
  return failed ? 1 : 0;
}

int main(int argc, char** argv) {
  if (argc >= 4 && strcmp(argv[1], "seq") == 0) return cmd_seq(argv[2], argv + 3, argc - 3);
  if (argc == 7 && strcmp(argv[1], "write") == 0)
    return cmd_write(argv[2], strtol(argv[3], NULL, 10), strtol(argv[4], NULL, 10),
                     strtol(argv[5], NULL, 10), strtol(argv[6], NULL, 10));
  fprintf(stderr,
          "usage: storm seq TEMP_FILE VALUE...\n"
          "       storm write TEMP_FILE RATE SECONDS LOW HIGH\n");
  return 2;
}
