package org.fts.samples;

import fts_samples.ProbePOA;
import org.fts.goa.Stateless;

/**
 * A servant that breaks the rule: it answers its replica's wall clock, which differs from replica to replica. The
 * divergence check (docs/determinism.md) stops the replicas whose replies differ from the group's, naming this
 * object. Activated only with {@code samples.wall_clock_probe=true}.
 */
public class ProbeImpl extends ProbePOA implements Stateless {
    @Override
    public long wall_clock() {
        return System.currentTimeMillis();
    }
}
