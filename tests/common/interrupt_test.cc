// The Ctrl-C flag: set by request_interrupt() or by SIGINT inside an
// InterruptScope (which then does not kill the process), reset by
// clear_interrupt(); outside a scope, and on a second SIGINT, the default
// action (death) is back.
#include "common/interrupt.h"

#include <csignal>

#include <gtest/gtest.h>

namespace devplace {
namespace {

bool sigint_is_default() {
  struct sigaction current = {};
  sigaction(SIGINT, nullptr, &current);
  return current.sa_handler == SIG_DFL;
}

TEST(Interrupt, RequestAndClearSetTheFlag) {
  clear_interrupt();
  EXPECT_FALSE(interrupt_requested());
  request_interrupt();
  EXPECT_TRUE(interrupt_requested());
  EXPECT_TRUE(interrupt_requested());  // reading does not reset it
  clear_interrupt();
  EXPECT_FALSE(interrupt_requested());
}

TEST(Interrupt, SigintInsideAScopeSetsTheFlagAndTheProcessLives) {
  clear_interrupt();
  {
    InterruptScope scope;
    EXPECT_FALSE(sigint_is_default());
    EXPECT_FALSE(interrupt_requested());
    ASSERT_EQ(std::raise(SIGINT), 0);
    EXPECT_TRUE(interrupt_requested());
  }
  EXPECT_TRUE(interrupt_requested());  // the scope's end keeps the flag for the caller
  EXPECT_TRUE(sigint_is_default());
  clear_interrupt();
}

TEST(Interrupt, NestedScopesKeepTheHandlerUntilTheOutermostEnds) {
  clear_interrupt();
  EXPECT_TRUE(sigint_is_default());
  {
    InterruptScope outer;
    {
      InterruptScope inner;
      EXPECT_FALSE(sigint_is_default());
    }
    EXPECT_FALSE(sigint_is_default());
    std::raise(SIGINT);
    EXPECT_TRUE(interrupt_requested());
  }
  EXPECT_TRUE(sigint_is_default());
  clear_interrupt();
}

TEST(InterruptDeathTest, SigintOutsideAScopeKills) {
  EXPECT_EXIT(std::raise(SIGINT), testing::KilledBySignal(SIGINT), "");
}

TEST(InterruptDeathTest, ASecondSigintInsideAScopeKills) {
  EXPECT_EXIT(
      {
        InterruptScope scope;
        std::raise(SIGINT);
        std::raise(SIGINT);
      },
      testing::KilledBySignal(SIGINT), "");
}

}  // namespace
}  // namespace devplace
