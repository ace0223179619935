// kmod/include/uapi/coolhand.h must be usable from C++ (the daemon includes
// it). This compiles it as C++20 with the project's warnings and pins the
// ABI numbers documented in kmod/README, so renumbering fails the build.
#include <cstdio>
#include <string_view>

#include "coolhand.h"

static_assert(std::string_view(COOLHAND_GENL_NAME) == "coolhand");
static_assert(std::string_view(COOLHAND_GENL_MCGRP_EVENTS) == "events");
static_assert(COOLHAND_GENL_VERSION == 1);
static_assert(COOLHAND_CMD_ZONE_GET == 1 && COOLHAND_CMD_DEV_GET == 2 &&
              COOLHAND_CMD_TEMP_GET == 3 && COOLHAND_CMD_WINDOW_SET == 4 &&
              COOLHAND_CMD_LEVEL_SET == 5 && COOLHAND_CMD_EVENT_TEMP == 6 &&
              COOLHAND_CMD_EVENT_TRIP == 7 && COOLHAND_CMD_EVENT_THROTTLE == 8 &&
              COOLHAND_CMD_MAX == 8);
static_assert(COOLHAND_A_PAD == 1 && COOLHAND_A_ZONE_ID == 2 && COOLHAND_A_TEMP == 5 &&
              COOLHAND_A_PREV_TEMP == 6 && COOLHAND_A_SEQ == 7 && COOLHAND_A_TIMESTAMP_NS == 8 &&
              COOLHAND_A_TRIP == 9 && COOLHAND_A_TRIP_DIRECTION == 13 &&
              COOLHAND_A_WINDOW_LOW == 15 && COOLHAND_A_STEP_ABOVE == 18 &&
              COOLHAND_A_DEV_ID == 19 && COOLHAND_A_LEVEL == 21 && COOLHAND_A_ZONE_DEVS == 24 &&
              COOLHAND_A_ALARMS == 27 && COOLHAND_A_MAX == 27);
static_assert(COOLHAND_KIND_CPU == 0 && COOLHAND_KIND_SKIN == 3);
static_assert(COOLHAND_TRIP_PASSIVE == 0 && COOLHAND_TRIP_CRITICAL == 1);
static_assert(COOLHAND_TRIP_UP == 1 && COOLHAND_TRIP_DOWN == 2);
static_assert(COOLHAND_TEMP_MIN_MC == -273150 && COOLHAND_STEP_MAX_MC == 100000);

int main() {
  // Enumerators convert like any C++ unscoped enum.
  constexpr int attr = COOLHAND_A_TEMP;
  std::printf("coolhand uapi: family %s v%d, %d attributes, temp attr %d\n", COOLHAND_GENL_NAME,
              COOLHAND_GENL_VERSION, COOLHAND_A_MAX, attr);
  return 0;
}
