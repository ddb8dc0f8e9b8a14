package org.fts.chaos;

/** The {@link Nemesis}'s time, so that tests can run a schedule in virtual time. */
public interface NemesisClock {
    NemesisClock SYSTEM = new NemesisClock() {
        @Override
        public long nanos() {
            return System.nanoTime();
        }

        @Override
        public void sleep(long millis) throws InterruptedException {
            Thread.sleep(millis);
        }
    };

    long nanos();

    void sleep(long millis) throws InterruptedException;
}
