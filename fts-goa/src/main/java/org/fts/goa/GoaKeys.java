package org.fts.goa;

import org.fts.goa.intake.Placement;
import java.util.ArrayList;
import java.util.List;

import org.fts.batching.BatchingConfig;
import org.fts.config.ConfigKey;
import org.fts.config.ConfigKeyProvider;
import org.fts.goa.giop.GiopGuard;

/** The Group Object Adaptor's keys ({@link GoaConfig}, the GIOP guard, placement, batching). */
public final class GoaKeys implements ConfigKeyProvider {
    @Override
    public List<ConfigKey<?>> keys() {
        List<ConfigKey<?>> keys = new ArrayList<>(GoaConfig.KEYS);
        keys.add(GiopGuard.MAX_MESSAGE_SIZE);
        keys.add(GiopGuard.INTAKE_MAX_BYTES);
        keys.add(GiopGuard.IO_TIMEOUT);
        keys.add(Placement.MODE);
        keys.addAll(ReadOperations.KEYS);
        keys.addAll(org.fts.goa.frontend.FrontEnd.KEYS);
        keys.addAll(BatchingConfig.KEYS);
        keys.addAll(MetricsEndpoint.KEYS);
        keys.addAll(Backups.KEYS);
        keys.addAll(ObjectTable.KEYS);
        keys.addAll(DivergenceCheck.KEYS);
        keys.addAll(Outcalls.KEYS);
        return keys;
    }
}
