/** The CDK app: the staging and production stacks (docs/service-spec.md §9.2), differing by settings. */
import { createServiceApp } from './service-app.ts';

createServiceApp().app.synth();
