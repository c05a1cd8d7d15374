#!/usr/bin/env bash
# The thread-sanitizer pass CI runs; see scripts/sanitize.sh.
#
# It covers the suites where threads meet, in this process: the engine's index under concurrent
# readers and writers (ConcurrentAccessTests), the stores and their connections, the C ABI's
# handles, the key files, run in parallel as swift-testing does. The suites that start child
# processes (the CLI's, the multi-process store tests, the MSAL Python interop) run in the normal
# pass only: their children are separate programs, and under TSan libdispatch's manager thread,
# which watches those children, has crashed in uninstrumented code. The Redis suites that start
# their own redis-server processes are left out for the same reason; the Redis conformance suites
# run, against the servers sanitize.sh starts. The hostile-server suite streams 600 MiB through the
# reply reader to reach its cap, which under TSan's instrumentation outlasts any timeout; it holds
# one connection on one thread, and runs in the normal pass. So does HostileSizeRegressionTests: one
# thread parsing an 8-million-value document, which took six minutes under TSan's instrumentation.
# The property tests that replay long random histories through one engine or one store (an
# answer compared with a fresh read after each step; thousands of items through one handle) make
# one call at a time from one thread: they were two-thirds of the pass's time and meet no other
# thread, so they too run in the normal pass only. What runs here still has every suite whose
# threads share an engine, a store, a handle or a connection.
slow_one_thread='partitionModeAnswersLikeWholeStoreMode|carriedAnswersMatchAFreshRead|caughtUpIndexesAnswerLikeAFreshRead'
slow_one_thread+='|incrementalIndexMatchesAFreshRead|manyItemsAndPointLookups|largePayloadsRoundTrip'
slow_one_thread+='|chunkedReadHandsOverEveryItemInOrder|everyTruncationFailsCleanlyAndChangesNothing'
slow_one_thread+='|manyPartitionsSpreadOverShardsReadBackWhole'
# The format readers' suites (schema, interchange, keyed archives, JSON, display) drive code that
# starts no thread and shares no state between calls; they run in the normal pass, and the readers
# under the fuzzers (AddressSanitizer) as well.
one_thread_targets='TokenCacheSchemaTests|TokenCacheInterchangeTests|KeyedArchiveTests|TokenCacheJSONTests|TokenCacheDisplayTests'
if [ "${1:-}" = "--build-only" ]; then exec bash "$(dirname "$0")/sanitize.sh" thread --build-only; fi
exec bash "$(dirname "$0")/sanitize.sh" thread \
    --skip tokencacheTests --skip MultiProcessTests --skip RevalidationTests --skip ConcurrentFirstWriteTests \
    --skip RedisFaultTests --skip RedisFailoverTests --skip RedisMultiProcessTests --skip RedisStoreTests \
    --skip RedisHostileServerTests --skip HostileSizeRegressionTests --skip "$slow_one_thread" \
    --skip "$one_thread_targets" "$@"
