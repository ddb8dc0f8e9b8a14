package org.fts.samples;

import fts_samples.HelloObjPOA;

/** The paper's HelloObj: stores one string. */
public class HelloObjImpl extends HelloObjPOA {
    private String value = "";

    @Override
    public synchronized void set(String s) {
        value = s;
    }

    @Override
    public synchronized String get() {
        return value;
    }
}
