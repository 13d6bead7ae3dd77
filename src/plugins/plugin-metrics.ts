import { Counter, Gauge, Histogram } from 'prom-client';
import type { MetricsService } from '../metrics/metrics.service';
import type { Labels, PluginMetrics } from './api';

const NOOP = { inc: () => undefined, set: () => undefined, dec: () => undefined, observe: () => undefined };

/**
 * A plugin's metric families, on the gateway's registry under its prefix; no-ops when metrics are off.
 * A family asked for twice (two plugins, or a rebuilt context) is the same family.
 */
export function pluginMetrics(metrics: MetricsService | undefined): PluginMetrics {
  if (!metrics?.enabled) return { counter: () => NOOP, gauge: () => NOOP, histogram: () => NOOP };
  const registry = metrics.registry;
  const existing = <T>(name: string): T | undefined => registry.getSingleMetric(`${metrics.prefix}${name}`) as T | undefined;
  const config = (name: string, help: string, labelNames: readonly string[] = []) => ({ name: `${metrics.prefix}${name}`, help, labelNames: [...labelNames], registers: [registry] });
  return {
    counter: (name, help, labelNames) => {
      const family = existing<Counter>(name) ?? new Counter(config(name, help, labelNames));
      return { inc: (labels: Labels = {}, value = 1) => family.inc(labels, value) };
    },
    gauge: (name, help, labelNames) => {
      const family = existing<Gauge>(name) ?? new Gauge(config(name, help, labelNames));
      return {
        set: (labels: Labels, value: number) => family.set(labels, value),
        inc: (labels: Labels = {}, value = 1) => family.inc(labels, value),
        dec: (labels: Labels = {}, value = 1) => family.dec(labels, value),
      };
    },
    histogram: (name, help, labelNames, buckets) => {
      const family = existing<Histogram>(name) ?? new Histogram({ ...config(name, help, labelNames), ...(buckets ? { buckets: [...buckets] } : {}) });
      return { observe: (labels: Labels, value: number) => family.observe(labels, value) };
    },
  };
}
