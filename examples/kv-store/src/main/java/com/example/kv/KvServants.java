package com.example.kv;

import org.fts.replica.ServantProvider;
import org.fts.replica.Servants;

/**
 * The store for FTS's shipped replica runner: put this jar in the distribution's {@code lib/} and {@code bin/fts
 * replica --config FILE} serves object {@code store} (docs/guide.md, "Run it from the distribution"). Found through
 * {@code META-INF/services/org.fts.replica.ServantProvider}.
 */
public final class KvServants implements ServantProvider {
    @Override
    public String name() {
        return "kv";
    }

    @Override
    public void activate(Servants servants) throws Exception {
        servants.activate("store", new StoreImpl());   // the same id on every replica
    }
}
