import { defineResource } from '../resource';
import * as create from './create.operation';

export const integration = defineResource('Integration', 'integration', [create.operation]);
