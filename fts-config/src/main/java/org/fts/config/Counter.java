package org.fts.config;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import javax.management.DescriptorKey;

/**
 * Marks a JMX attribute's getter as a counter: a count that only grows while the process lives (it starts again at 0
 * with the process). The metrics endpoint exports such an attribute as a Prometheus counter ({@code <name>_total}),
 * every other number as a gauge (docs/metrics.md). Read through the attribute's JMX descriptor ({@code metricType}).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Counter {
    /** The descriptor field the metrics endpoint reads: {@code metricType=counter}. */
    @DescriptorKey("metricType")
    String value() default "counter";
}
