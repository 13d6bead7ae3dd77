export { Instrumentation } from './instrumentation';
export { errorOutcome, OTHER_METHOD } from './label-values';
export { type MetricFamilies, type Sampled, type SampledGauge, type Surface } from './metric-families';
export { MetricsServer } from './metrics-server';
export { MetricsModule } from './metrics.module';
export { MetricsService, type TransportMeter } from './metrics.service';
export { ReadinessService, type ReadinessCheck, type ReadinessState } from './readiness.service';
