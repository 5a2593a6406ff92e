/* test/farm/farm_embed.c: a program that uses the farm as a library (farm.h), run under
 * mpirun by farm_test.py's `embed` scenario.
 *
 *   farm-embed own   the program starts MPI itself: the farm must neither finalize it nor
 *                    change MPI_COMM_WORLD's error handler, and MPI stays usable after
 *                    prunerFarmDestroy.
 *   farm-embed farm  the farm starts and ends MPI.
 *   farm-embed serialized  the program started MPI with MPI_THREAD_SERIALIZED: the farm
 *                    refuses (its heartbeat thread would call MPI beside the program's
 *                    threads), naming MPI_THREAD_MULTIPLE; prints "rank R: refused".
 *
 * Both then live on past the finalize watchdog's 10 s (it ended every process 10 s after
 * a clean prunerFarmDestroy, with the status given to Destroy, 42 here) and print
 * "rank R: alive". Exit status 0 when every check holds. */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pruner/farm.h"

static int fail(int rank, const char *what) {
  printf("rank %d: FAIL: %s\n", rank, what);
  fflush(stdout);
  return 1;
}

int main(int argc, char **argv) {
  if (argc == 2 && !strcmp(argv[1], "serialized")) {
    int provided = 0, rank = -1;
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
      return fail(rank, "MPI_Init_thread");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PrunerFarm farm = NULL;
    PrunerStatus st = prunerFarmCreate(&argc, &argv, NULL, &farm);
    int bad = 0;
    if (provided >= MPI_THREAD_MULTIPLE) /* this MPI gave more than asked: nothing to see */
      printf("rank %d: refused (MULTIPLE provided)\n", rank);
    else if (st.ok || !strstr(st.message, "MPI_THREAD_MULTIPLE") || farm)
      bad = fail(rank, st.ok ? "a SERIALIZED MPI of the program was accepted" : st.message);
    else
      printf("rank %d: refused\n", rank);
    prunerFarmDestroy(farm, 0);
    fflush(stdout);
    MPI_Finalize();
    return bad;
  }
  if (argc != 2 || (strcmp(argv[1], "own") && strcmp(argv[1], "farm"))) {
    fprintf(stderr, "usage: farm-embed own|farm|serialized\n");
    return 2;
  }
  bool own = strcmp(argv[1], "own") == 0;
  int provided = 0, rank = -1;
  if (own) {
    if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
      return fail(rank, "MPI_Init_thread");
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  }
  PrunerFarm farm = NULL;
  PrunerStatus st = prunerFarmCreate(&argc, &argv, NULL, &farm);
  if (!st.ok)
    return fail(rank, st.message);
  rank = prunerFarmRank(farm);
  prunerFarmDestroy(farm, 42);
  if (own) {
    int finalized = 1;
    MPI_Finalized(&finalized);
    if (finalized)
      return fail(rank, "prunerFarmDestroy finalized the program's MPI");
    MPI_Errhandler handler;
    MPI_Comm_get_errhandler(MPI_COMM_WORLD, &handler);
    if (handler != MPI_ERRORS_ARE_FATAL)
      return fail(rank, "the farm changed MPI_COMM_WORLD's error handler");
    MPI_Errhandler_free(&handler);
    int one = 1, sum = 0;
    if (MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD) != MPI_SUCCESS)
      return fail(rank, "MPI unusable after prunerFarmDestroy");
    printf("rank %d: MPI usable after the farm, %d ranks\n", rank, sum);
  }
  sleep(12);
  if (own)
    MPI_Finalize();
  printf("rank %d: alive\n", rank);
  return 0;
}
