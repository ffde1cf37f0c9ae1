import { useMemo } from 'react';
import type { WidgetProps } from '@rjsf/utils';
import { STATES_PATH, statesOf } from './placesData';
import { RemoteSelect } from './RemoteSelect';
import { useRemoteList } from './useRemoteList';

/**
 * A select of the 50 US states and DC, fetched from /data/us-states.json on first use. The value
 * is the 2-letter code ("CA").
 *
 * ui:placeholder is the empty choice. ui:options: loadingText, loadErrorText, retryText.
 */
export default function UsStateWidget(props: WidgetProps) {
  const code = typeof props.value === 'string' ? props.value : '';
  const [list, retry] = useRemoteList(STATES_PATH, statesOf);
  const items = list.status === 'ready' ? list.items : undefined;

  // Memoised: the whole form re-renders on every key press, and 51 unchanged options need not be diffed.
  const optionElements = useMemo(
    () =>
      items?.map((state) => (
        <option key={state.code} value={state.code}>
          {state.name}
        </option>
      )),
    [items],
  );
  const unknownValue = code !== '' && !items?.some((state) => state.code === code);

  return (
    <RemoteSelect
      widget={props}
      value={code}
      unknownValue={unknownValue}
      list={list}
      retry={retry}
      defaultAutoComplete="address-level1"
      loadingTextOf="statesLoading"
      errorTextOf="statesLoadError"
    >
      {optionElements}
    </RemoteSelect>
  );
}
